import { resolveStoreRoot } from "../../store/root.js";
import { type HookMainSpec, runHookMain } from "../hook-kit/main.js";
import { type HookIo, hookFailure, hookOptionsUsage } from "../hook-kit/process.js";
import { handleCopilotEvent } from "./handler.js";
import {
  COPILOT_EVENTS,
  type CopilotEvent,
  type CopilotEventName,
  parseCopilotInput,
} from "./payload.js";

export const COPILOT_HOOK_USAGE = `Usage: todo-continuation hook copilot --event <agentStop|userPromptSubmitted> [options] < event.json

Reads one GitHub Copilot CLI hook payload as JSON on stdin. At agentStop with open
todos (the session's sql \`todos\` table) it prints {"decision":"block","reason":...}.
Always exits 0; errors allow the stop and are explained on stderr.

${hookOptionsUsage("$XDG_STATE_HOME/todo-continuation")}`;

/** Copilot CLI's hook process, described for the kit: the installed command names the event. */
export const COPILOT_HOOK: HookMainSpec<CopilotEvent> = {
  host: "copilot",
  usage: COPILOT_HOOK_USAGE,
  events: COPILOT_EVENTS,
  parse: (text, event) => parseCopilotInput(text, event as CopilotEventName),
  failure: (error) => hookFailure(error, "allowing the stop"),
  // A subagent's events touch no store: its stop is never blocked, its prompt starts no turn.
  storeless: (event) =>
    event.kind === "subagent"
      ? {
          stdout: "",
          stderr: [
            `todo-continuation: ${event.event} of a subagent (${event.agentType ?? "unknown type"}); not nudged`,
          ],
        }
      : null,
  cwdOf: (event) => event.cwd,
  storeRoot: ({ dir, env, cwd }) => resolveStoreRoot(dir, { env, cwd }),
  projectDir: ({ cwd }) => cwd,
  handle: handleCopilotEvent,
};

/** One Copilot hook event in, Copilot's answer out; always exit code 0. */
export function runCopilotHook(argv: readonly string[], io: HookIo): Promise<number> {
  return runHookMain(COPILOT_HOOK, argv, io);
}
