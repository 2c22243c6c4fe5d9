/**
 * Reading a hook event's fields: only what an integration acts on, and a
 * field that is there but of the wrong type is an error naming it (acting on
 * a misread event could nudge the wrong session). Each host throws its own
 * error class, so the readers are made for one.
 */

export type RawEvent = Record<string, unknown>;

type ErrorClass = new (message: string) => Error;

/** A value as an error message names it. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string (${JSON.stringify(value.slice(0, 40))})`;
  return typeof value;
}

export interface FieldReaders {
  /** A non-empty string; anything else is an error. */
  requiredString(raw: RawEvent, field: string): string;
  /** A string, or null when missing. */
  optionalString(raw: RawEvent, field: string): string | null;
  /** A string that may be empty (a prompt, a response); missing reads as "". */
  text(raw: RawEvent, field: string): string;
  /** A string that may be empty but must be there (a prompt). */
  requiredText(raw: RawEvent, field: string): string;
  /** A boolean; missing reads as false. */
  optionalBoolean(raw: RawEvent, field: string): boolean;
  /** An array; missing reads as []. */
  optionalArray(raw: RawEvent, field: string): unknown[];
  /** The JSON object a hook read from stdin; throws on anything else. */
  parseObject(text: string): RawEvent;
  /** A tool call as the Claude-compatible protocols name it: `tool_name`, `tool_input`, `tool_response`. */
  toolCall(raw: RawEvent): ToolCall;
}

export interface ToolCall {
  toolName: string;
  toolInput: unknown;
  toolResponse: unknown;
}

/** Field readers that throw `Failure`, each message starting `hook input`. */
export function fieldReaders(Failure: ErrorClass): FieldReaders {
  const wrong = (field: string, kind: string, value: unknown) =>
    new Failure(`hook input: ${field} must be ${kind}, got ${describeValue(value)}`);
  const optional = <T>(raw: RawEvent, field: string, kind: string, ok: (v: unknown) => boolean) => {
    const value = raw[field];
    if (value === undefined || value === null) return undefined;
    if (!ok(value)) throw wrong(field, kind, value);
    return value as T;
  };
  const isString = (v: unknown) => typeof v === "string";
  const requiredString = (raw: RawEvent, field: string): string => {
    const value = raw[field];
    if (typeof value !== "string" || value.trim() === "") {
      throw wrong(field, "a non-empty string", value);
    }
    return value;
  };
  return {
    requiredString,
    optionalString: (raw, field) => optional<string>(raw, field, "a string", isString) ?? null,
    requiredText(raw, field) {
      const value = raw[field];
      if (typeof value !== "string") throw wrong(field, "a string", value);
      return value;
    },
    text: (raw, field) => optional<string>(raw, field, "a string", isString) ?? "",
    optionalBoolean: (raw, field) =>
      optional<boolean>(raw, field, "a boolean", (v) => typeof v === "boolean") ?? false,
    optionalArray: (raw, field) => optional<unknown[]>(raw, field, "an array", Array.isArray) ?? [],
    toolCall(raw) {
      return {
        toolName: requiredString(raw, "tool_name"),
        toolInput: raw.tool_input,
        toolResponse: raw.tool_response,
      };
    },
    parseObject(text) {
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Failure(`hook input is not JSON (${reason}); got ${text.length} characters`);
      }
      if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
        throw new Failure(`hook input must be a JSON object, got ${describeValue(raw)}`);
      }
      return raw as RawEvent;
    },
  };
}
