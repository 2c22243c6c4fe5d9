/**
 * Gemini CLI integration: the hook (BeforeAgent, BeforeTool/AfterTool on the
 * todo tools and invoke_agent, AfterAgent), the installer, the doctor check,
 * and the pure pieces they are made of, for anyone wiring the hooks by hand.
 */

export { type ChildRuns, defaultChildRoot, fileChildRuns } from "./children.js";
export { GEMINI_HOOK_NAME, geminiHookCommand, HOOK_ENTRY } from "./command.js";
export { geminiDoctor } from "./doctor.js";
export { type TurnEvidence, turnEvidence } from "./evidence.js";
export {
  ALLOW,
  GEMINI_HOST,
  type GeminiHookOptions,
  type GeminiHookResponse,
  geminiBlockDecision,
  geminiScope,
  handleGeminiHookEvent,
  handleStorelessEvent,
} from "./handler.js";
export {
  GEMINI_HOOK_USAGE,
  type GeminiHookIo,
  parseGeminiHookArgs,
  runGeminiHook,
} from "./hook.js";
export {
  type GeminiInstallOptions,
  type GeminiInstallResult,
  geminiNotes,
  installGemini,
  uninstallGemini,
} from "./install.js";
export { type GeminiTarget, geminiSettingsPath, geminiUserDir } from "./paths.js";
export {
  type GeminiHookEvent,
  GeminiHookInputError,
  type KnownGeminiEvent,
  parseGeminiHookInput,
  parseGeminiHookObject,
} from "./payload.js";
export {
  GEMINI_HOOK_SPECS,
  GEMINI_HOOK_TIMEOUT_MS,
  type GeminiHookSpec,
  GeminiSettingsError,
  mergeGeminiHooks,
  removeGeminiHooks,
  todoToolOf,
  toolFactsOf,
} from "./settings.js";
export {
  GEMINI_PROJECT_STORE_FOLDER,
  geminiProjectDir,
  geminiStoreRoot,
} from "./store-location.js";
export {
  CHILD_AGENT_TOOL,
  GeminiTodoInputError,
  LIST_TOOLS,
  TRACKER_TOOLS,
  todosAfterTool,
  WRITE_TODOS,
} from "./todos.js";
export { folderTrustOf, hookTrustKey, trustOurHooks, untrustOurHooks } from "./trust.js";
export {
  isCancelled,
  isCliPrompt,
  isOurNudge,
  isRealUserPrompt,
  judgeTurn,
  NO_RESPONSE_TEXT,
  NUDGE_MARKER,
  nudgeReason,
  type TurnFacts,
  type TurnVerdict,
} from "./turn.js";
