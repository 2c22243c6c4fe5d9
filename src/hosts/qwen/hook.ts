import { handleHookEvent } from "../claude-code/handler.js";
import { CLAUDE_CODE_HOOK } from "../claude-code/hook.js";
import type { HookEvent } from "../claude-code/payload.js";
import { hookStoreRoot } from "../claude-code/store-location.js";
import { type HookMainSpec, runHookMain } from "../hook-kit/main.js";
import { type HookIo, hookOptionsUsage } from "../hook-kit/process.js";
import { parseQwenHookInput } from "./payload.js";
import { QWEN, QWEN_STORE_FOLDER, qwenProtocol } from "./protocol.js";

export const QWEN_HOOK_USAGE = `Usage: todo-continuation hook qwen [options] < event.json

Reads one Qwen Code hook event as JSON on stdin and answers as Qwen Code
expects: a Stop that should continue prints {"decision":"block","reason":...}.
Always exits 0; errors allow the stop and are explained on stderr.

${hookOptionsUsage("$QWEN_PROJECT_DIR/.qwen/todo-continuation")}`;

/** Qwen Code's hook process: Claude Code's under Qwen's names (see protocol.ts). */
export const QWEN_HOOK: HookMainSpec<HookEvent> = {
  ...CLAUDE_CODE_HOOK,
  host: QWEN,
  usage: QWEN_HOOK_USAGE,
  parse: parseQwenHookInput,
  storeRoot: ({ dir, env, cwd }) => hookStoreRoot({ dir, env, cwd, folder: QWEN_STORE_FOLDER }),
  // Read once per process: Qwen's cap on Stop blocks may come from its environment.
  handle: (event, context) =>
    handleHookEvent(event, { ...context, protocol: qwenProtocol(context.env) }),
};

/** One Qwen Code hook event in, Qwen's answer out. Always resolves to 0. */
export function runQwenHook(argv: readonly string[], io: HookIo): Promise<number> {
  return runHookMain(QWEN_HOOK, argv, io);
}
