/**
 * `todo-continuation/claude-agent-sdk`: the `hooks` option for the Claude
 * Agent SDK's `query()`, deciding every stop as the Claude Code hooks do.
 */
export {
  AGENT_SDK_HOOK_EVENTS,
  type AgentSdkHookCallback,
  type AgentSdkHookEvent,
  type AgentSdkHookInput,
  type AgentSdkHookMatcher,
  type AgentSdkHookOptions,
  type AgentSdkHookOutput,
  type AgentSdkHooks,
  todoContinuationHooks,
} from "./hooks.js";
