/**
 * Gemini CLI hook input, read from the JSON object a hook receives on stdin.
 * Only the events and fields this integration acts on are kept; a field that
 * is present but of the wrong type is an error naming it, since acting on a
 * misread payload could nudge the wrong session.
 */

export interface GeminiHookBase {
  sessionId: string;
  cwd: string | null;
  /** The session file the CLI records the conversation in (with each reply's tokens). */
  transcriptPath: string | null;
}

export type KnownGeminiEvent = GeminiHookBase &
  (
    | { kind: "BeforeAgent"; prompt: string }
    | { kind: "BeforeTool"; toolName: string; toolInput: unknown }
    | { kind: "AfterTool"; toolName: string; toolInput: unknown; toolResponse: unknown }
    | { kind: "AfterAgent"; prompt: string; promptResponse: string; stopHookActive: boolean }
  );

export type GeminiHookEvent = KnownGeminiEvent | { kind: "other"; name: string };

export class GeminiHookInputError extends Error {
  override name = "GeminiHookInputError";
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string (${JSON.stringify(value.slice(0, 40))})`;
  return typeof value;
}

function requiredString(raw: Record<string, unknown>, field: string): string {
  const value = raw[field];
  if (typeof value !== "string" || value.trim() === "") {
    throw new GeminiHookInputError(
      `hook input: ${field} must be a non-empty string, got ${describe(value)}`,
    );
  }
  return value;
}

/** A string that may be empty (a prompt, a response); missing reads as "". */
function text(raw: Record<string, unknown>, field: string): string {
  const value = raw[field];
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") {
    throw new GeminiHookInputError(`hook input: ${field} must be a string, got ${describe(value)}`);
  }
  return value;
}

function optionalString(raw: Record<string, unknown>, field: string): string | null {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") {
    throw new GeminiHookInputError(`hook input: ${field} must be a string, got ${describe(value)}`);
  }
  return value;
}

function optionalBoolean(raw: Record<string, unknown>, field: string): boolean {
  const value = raw[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") {
    throw new GeminiHookInputError(
      `hook input: ${field} must be a boolean, got ${describe(value)}`,
    );
  }
  return value;
}

/** Parses the text a hook read from stdin. Throws a GeminiHookInputError naming the bad field. */
export function parseGeminiHookInput(input: string): GeminiHookEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(input);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new GeminiHookInputError(
      `hook input is not JSON (${reason}); got ${input.length} characters`,
    );
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new GeminiHookInputError(`hook input must be a JSON object, got ${describe(raw)}`);
  }
  return parseGeminiHookObject(raw as Record<string, unknown>);
}

/** Parses an already-decoded hook input object. */
export function parseGeminiHookObject(raw: Record<string, unknown>): GeminiHookEvent {
  const name = requiredString(raw, "hook_event_name");
  if (
    name !== "BeforeAgent" &&
    name !== "BeforeTool" &&
    name !== "AfterTool" &&
    name !== "AfterAgent"
  ) {
    return { kind: "other", name };
  }
  const base: GeminiHookBase = {
    sessionId: requiredString(raw, "session_id"),
    cwd: optionalString(raw, "cwd"),
    transcriptPath: optionalString(raw, "transcript_path"),
  };
  switch (name) {
    case "BeforeAgent":
      return { ...base, kind: name, prompt: text(raw, "prompt") };
    case "BeforeTool":
      return {
        ...base,
        kind: name,
        toolName: requiredString(raw, "tool_name"),
        toolInput: raw.tool_input,
      };
    case "AfterTool":
      return {
        ...base,
        kind: name,
        toolName: requiredString(raw, "tool_name"),
        toolInput: raw.tool_input,
        toolResponse: raw.tool_response,
      };
    case "AfterAgent":
      return {
        ...base,
        kind: name,
        prompt: text(raw, "prompt"),
        promptResponse: text(raw, "prompt_response"),
        stopHookActive: optionalBoolean(raw, "stop_hook_active"),
      };
  }
}
