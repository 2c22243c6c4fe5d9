/**
 * Gemini CLI hook input, read from the JSON object a hook receives on stdin.
 * Only the events and fields this integration acts on are kept; a field that
 * is present but of the wrong type is an error naming it, since acting on a
 * misread payload could nudge the wrong session.
 */

import { fieldReaders } from "../hook-kit/fields.js";

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

const { requiredString, text, optionalString, optionalBoolean, parseObject, toolCall } =
  fieldReaders(GeminiHookInputError);

/** Parses the text a hook read from stdin. Throws a GeminiHookInputError naming the bad field. */
export function parseGeminiHookInput(input: string): GeminiHookEvent {
  return parseGeminiHookObject(parseObject(input));
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
      return { ...base, kind: name, ...toolCall(raw) };
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
