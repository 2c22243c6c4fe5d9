/**
 * Codex CLI hook input, read from the JSON object a hook receives on stdin.
 * Only the fields this integration acts on are kept; a field that is present
 * but of the wrong type is an error naming it, since acting on a misread
 * payload could nudge the wrong session.
 *
 * Every event carries `session_id` (the thread) and, except SessionStart,
 * `turn_id`. A subagent's hooks carry its parent's `session_id` plus its own
 * `agent_id`, so `agent_id` is what tells them apart.
 */

import { fieldReaders, type RawEvent } from "../hook-kit/fields.js";

/** Fields every hook event carries. */
export interface CodexHookBase {
  sessionId: string;
  /** The Codex turn: a Stop that Codex continues after our block keeps it. */
  turnId: string | null;
  transcriptPath: string | null;
  cwd: string | null;
  /** Set when the event comes from inside a subagent. */
  agentId: string | null;
  permissionMode: string | null;
}

/** Events this integration acts on; anything else parses as `other` and is ignored. */
export type KnownCodexHookEvent = CodexHookBase &
  (
    | { kind: "UserPromptSubmit"; prompt: string }
    | { kind: "PostToolUse"; toolName: string; toolInput: unknown; toolResponse: unknown }
    | { kind: "Stop"; stopHookActive: boolean; lastAssistantMessage: string | null }
    | { kind: "Interrupt" }
  );

export type CodexHookEvent = KnownCodexHookEvent | { kind: "other"; name: string };

export class CodexHookInputError extends Error {
  override name = "CodexHookInputError";
}

type Raw = RawEvent;

const { optionalString, requiredString, requiredText, optionalBoolean, parseObject, toolCall } =
  fieldReaders(CodexHookInputError);

/** Parses the text a hook read from stdin. Throws a CodexHookInputError naming the bad field. */
export function parseCodexHookInput(text: string): CodexHookEvent {
  return parseCodexHookObject(parseObject(text));
}

const KNOWN = new Set(["UserPromptSubmit", "PostToolUse", "Stop", "Interrupt"]);

/** Parses an already-decoded hook input object. */
export function parseCodexHookObject(raw: Raw): CodexHookEvent {
  const name = requiredString(raw, "hook_event_name");
  if (!KNOWN.has(name)) return { kind: "other", name };
  const base: CodexHookBase = {
    sessionId: requiredString(raw, "session_id"),
    turnId: optionalString(raw, "turn_id"),
    transcriptPath: optionalString(raw, "transcript_path"),
    cwd: optionalString(raw, "cwd"),
    agentId: optionalString(raw, "agent_id"),
    permissionMode: optionalString(raw, "permission_mode"),
  };
  switch (name) {
    case "UserPromptSubmit": {
      const prompt = requiredText(raw, "prompt");
      return { ...base, kind: name, prompt };
    }
    case "PostToolUse":
      return { ...base, kind: name, ...toolCall(raw) };
    case "Stop":
      return {
        ...base,
        kind: name,
        stopHookActive: optionalBoolean(raw, "stop_hook_active"),
        lastAssistantMessage: optionalString(raw, "last_assistant_message"),
      };
    default:
      return { ...base, kind: "Interrupt" };
  }
}
