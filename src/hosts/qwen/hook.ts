import { runClaudeCodeHook } from "../claude-code/hook.js";
import { type HookIo, hookOptionsUsage } from "../hook-process.js";
import { parseQwenHookInput } from "./payload.js";
import { QWEN, QWEN_STORE_FOLDER, qwenProtocol } from "./protocol.js";

export const QWEN_HOOK_USAGE = `Usage: todo-continuation hook qwen [options] < event.json

Reads one Qwen Code hook event as JSON on stdin and answers as Qwen Code
expects: a Stop that should continue prints {"decision":"block","reason":...}.
Always exits 0; errors allow the stop and are explained on stderr.

${hookOptionsUsage("$QWEN_PROJECT_DIR/.qwen/todo-continuation")}`;

/**
 * One Qwen Code hook event in, Qwen's answer out: the Claude Code hook with
 * Qwen's names (see protocol.ts). Always resolves to 0.
 */
export function runQwenHook(argv: readonly string[], io: HookIo): Promise<number> {
  return runClaudeCodeHook(argv, io, {
    name: QWEN,
    usage: QWEN_HOOK_USAGE,
    folder: QWEN_STORE_FOLDER,
    parse: parseQwenHookInput,
    protocol: qwenProtocol,
  });
}
