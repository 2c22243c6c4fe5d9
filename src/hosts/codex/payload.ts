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

type Raw = Record<string, unknown>;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string (${JSON.stringify(value.slice(0, 40))})`;
  return typeof value;
}

function optionalString(raw: Raw, field: string): string | null {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") {
    throw new CodexHookInputError(`hook input: ${field} must be a string, got ${describe(value)}`);
  }
  return value;
}

function requiredString(raw: Raw, field: string): string {
  const value = raw[field];
  if (typeof value !== "string" || value.trim() === "") {
    throw new CodexHookInputError(
      `hook input: ${field} must be a non-empty string, got ${describe(value)}`,
    );
  }
  return value;
}

function optionalBoolean(raw: Raw, field: string): boolean {
  const value = raw[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") {
    throw new CodexHookInputError(`hook input: ${field} must be a boolean, got ${describe(value)}`);
  }
  return value;
}

/** Parses the text a hook read from stdin. Throws a CodexHookInputError naming the bad field. */
export function parseCodexHookInput(text: string): CodexHookEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CodexHookInputError(
      `hook input is not JSON (${reason}); got ${text.length} characters`,
    );
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new CodexHookInputError(`hook input must be a JSON object, got ${describe(raw)}`);
  }
  return parseCodexHookObject(raw as Raw);
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
      const prompt = raw.prompt;
      if (typeof prompt !== "string") {
        throw new CodexHookInputError(
          `hook input: prompt must be a string, got ${describe(prompt)}`,
        );
      }
      return { ...base, kind: name, prompt };
    }
    case "PostToolUse":
      return {
        ...base,
        kind: name,
        toolName: requiredString(raw, "tool_name"),
        toolInput: raw.tool_input,
        toolResponse: raw.tool_response,
      };
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
