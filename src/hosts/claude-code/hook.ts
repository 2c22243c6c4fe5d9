import { type HookMainSpec, NO_REPLY, runHookMain } from "../hook-kit/main.js";
import {
  type HookArgs,
  type HookIo,
  hookFailure,
  hookOptionsUsage,
  parseHookArgs as parseSharedHookArgs,
} from "../hook-kit/process.js";
import { handleHookEvent } from "./handler.js";
import { type HookEvent, parseHookInput } from "./payload.js";
import { hookStoreRoot, projectDir } from "./store-location.js";

export const HOOK_USAGE = `Usage: todo-continuation hook claude-code [options] < event.json

Reads one Claude Code hook event as JSON on stdin and answers as Claude Code
expects: a Stop that should continue prints {"decision":"block","reason":...}.
Always exits 0; errors allow the stop and are explained on stderr.

${hookOptionsUsage("$CLAUDE_PROJECT_DIR/.claude/todo-continuation")}`;

export type { HookArgs };

/** Reads the hook's options; `argv` may start with `hook` and the host name (`claude-code`). */
export function parseHookArgs(argv: readonly string[]): HookArgs {
  return parseSharedHookArgs("claude-code", argv);
}

/** Claude Code's hook process, described for the kit. */
export const CLAUDE_CODE_HOOK: HookMainSpec<HookEvent> = {
  host: "claude-code",
  usage: HOOK_USAGE,
  parse: (text) => parseHookInput(text),
  failure: (error) => hookFailure(error, "allowing the stop"),
  // Nothing to do without opening the store: unknown events, subagents.
  storeless: (event) =>
    event.kind === "other" || event.kind === "SubagentStop" || event.agentId !== null
      ? NO_REPLY
      : null,
  cwdOf: (event) => (event.kind === "other" ? null : event.cwd),
  storeRoot: ({ dir, env, cwd }) => hookStoreRoot({ dir, env, cwd }),
  projectDir: ({ env, cwd }) => projectDir(env, cwd),
  // Two copies of the package (a global one and the project's) write two commands, both run.
  eventOf: (event) =>
    event.kind === "other" ? null : { sessionId: event.sessionId, name: event.kind },
  handle: (event, context) => handleHookEvent(event, context),
};

/**
 * One Claude Code hook event in, Claude Code's answer out. Resolves to the
 * exit code, which is always 0: the hook never fails closed on its own
 * errors. Both the `todo-continuation hook claude-code` command and the
 * stand-alone entry (`bin.js`) run this.
 */
export function runClaudeCodeHook(argv: readonly string[], io: HookIo): Promise<number> {
  return runHookMain(CLAUDE_CODE_HOOK, argv, io);
}
