import { createHash } from "node:crypto";

/**
 * Codex runs a hook from a user or project config only once its trust entry
 * (`[hooks.state."<key>"] trusted_hash = "<hash>"` in the user's config.toml)
 * matches the hook's current hash; otherwise it lists the hook for review and
 * skips it. Measured on 0.169.0 against `codex app-server`'s `hooks/list`:
 *
 * - key: `<absolute config file>:<event label>:<group index>:<handler index>`,
 *   the indices counting the event's matcher groups in that file and the
 *   handlers in that group, from 0;
 * - hash: `sha256:` + the hex SHA-256 of the compact JSON, keys sorted at
 *   every level, of `{event_name, matcher?, hooks: [handler]}`, the handler
 *   being `{type: "command", command, timeout, async}` with the timeout
 *   defaulted to 600 and fields that are unset left out.
 *
 * So the hash changes with the command, the matcher or the timeout, and the
 * key moves when groups are added before ours: both mean re-trusting.
 */

/** The events this integration installs, with Codex's snake-case labels. */
export const EVENT_LABELS = {
  UserPromptSubmit: "user_prompt_submit",
  PostToolUse: "post_tool_use",
  Stop: "stop",
  Interrupt: "interrupt",
} as const;

export type CodexHookEventName = keyof typeof EVENT_LABELS;

/** A command hook as it appears in config.toml. */
export interface CommandHook {
  event: CodexHookEventName;
  matcher?: string;
  command: string;
  /** Seconds; Codex's default is 600. */
  timeout?: number;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function canonical(value: Json): Json {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: Json } = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical(value[key] as Json);
    return out;
  }
  return value;
}

/** The hash Codex expects in a hook's trust entry. */
export function codexHookHash(hook: CommandHook): string {
  const identity: { [key: string]: Json } = {
    event_name: EVENT_LABELS[hook.event],
    hooks: [{ type: "command", command: hook.command, timeout: hook.timeout ?? 600, async: false }],
  };
  if (hook.matcher !== undefined) identity.matcher = hook.matcher;
  const text = JSON.stringify(canonical(identity));
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

/** The key Codex files a hook's trust entry under. */
export function codexHookKey(
  sourcePath: string,
  event: CodexHookEventName,
  groupIndex: number,
  handlerIndex = 0,
): string {
  return `${sourcePath}:${EVENT_LABELS[event]}:${groupIndex}:${handlerIndex}`;
}
