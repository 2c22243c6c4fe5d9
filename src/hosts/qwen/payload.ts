import { type HookEvent, parseHookInput } from "../claude-code/payload.js";

/**
 * Qwen Code's hook input in Claude Code's shape. Two fields differ:
 * - `UserPromptSubmit` also runs before the model call after a tool result
 *   and after a Stop block (with the block's reason as `prompt`); only a
 *   prompt a person submitted carries `submitted_prompt`. It becomes the
 *   `source` Claude Code sends (`user`, else not a person).
 * - A Stop's scheduled jobs are `crons`, Claude Code's `session_crons`.
 */

/** `source` for a prompt Qwen sent on its own: any value but a person's counts as not real. */
export const QWEN_MACHINE_SOURCE = "qwen-continuation";

export function parseQwenHookInput(text: string): HookEvent {
  return parseHookInput(text, qwenToClaude);
}

/** The same object with Qwen's fields under Claude Code's names. */
export function qwenToClaude(raw: Record<string, unknown>): Record<string, unknown> {
  const event = raw.hook_event_name;
  if (event === "UserPromptSubmit") {
    const submitted =
      typeof raw.submitted_prompt === "string" && raw.submitted_prompt.trim() !== "";
    return { ...raw, source: submitted ? "user" : QWEN_MACHINE_SOURCE };
  }
  if (event === "Stop" && raw.session_crons === undefined && raw.crons !== undefined) {
    return { ...raw, session_crons: raw.crons };
  }
  return raw;
}
