import { join } from "node:path";
import type { HookProtocol } from "../claude-code/handler.js";
import { analyzeQwenTranscript } from "./transcript.js";

/**
 * Qwen Code's hook protocol, measured on 0.24.4 (see docs/qwen.md): Claude
 * Code's events, payload fields and `{"decision":"block","reason"}` reply,
 * under Qwen's own names. Everything that differs is here.
 */

/** The host name in scope keys and in `hook qwen`. */
export const QWEN = "qwen";

/** Qwen's whole-list todo tool: `{todos: [{id, content, status}]}`, off unless `tools.todoWrite.enabled`. */
export const QWEN_TODO_WRITE = "todo_write";

/** The events we install, in Qwen's names. SubagentStop is left out: a subagent's stop is never ours. */
export const QWEN_EVENTS = [
  { event: "SessionStart", matcher: "resume" },
  { event: "UserPromptSubmit" },
  { event: "PostToolUse", matcher: `^${QWEN_TODO_WRITE}$` },
  { event: "Stop" },
] as const;

/** Qwen ends a prompt's turn at this many Stop blocks in a row (its `stopHookBlockingCap`). */
export const QWEN_DEFAULT_BLOCK_CAP = 8;
/** Overrides the cap for one run. */
export const QWEN_BLOCK_CAP_ENV = "QWEN_CODE_STOP_HOOK_BLOCK_CAP";

/** The store folder inside a project, beside Qwen's project settings. */
export const QWEN_STORE_FOLDER = join(".qwen", "todo-continuation");

export const QWEN_CLOSE_INSTRUCTION = `When an item is done and verified, call ${QWEN_TODO_WRITE} with the whole list and that item's status set to "completed".`;

/**
 * The cap this run of Qwen works with: its environment's override when that
 * is a positive whole number, else the default. Qwen honours the N-th block
 * of a row by ending the turn, so at most N-1 nudges are ever delivered.
 */
export function qwenBlockCap(env: Record<string, string | undefined>): number {
  const raw = env[QWEN_BLOCK_CAP_ENV]?.trim() ?? "";
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(value) && value > 0 ? value : QWEN_DEFAULT_BLOCK_CAP;
}

/** What the Claude Code handler needs to serve Qwen. */
export function qwenProtocol(env: Record<string, string | undefined>): HookProtocol {
  return {
    host: QWEN,
    todoWrite: QWEN_TODO_WRITE,
    closeInstruction: QWEN_CLOSE_INSTRUCTION,
    analyzeTranscript: analyzeQwenTranscript,
    maxNudges: qwenBlockCap(env) - 1,
  };
}
