/**
 * Claude Code hook input, read from the JSON object a hook receives on stdin.
 * Only the fields this integration acts on are kept; a field that is present
 * but of the wrong type is an error naming it, since acting on a misread
 * payload could nudge the wrong session.
 */

import { fieldReaders } from "../hook-kit/fields.js";

/** Fields every hook event carries. */
export interface HookBase {
  sessionId: string;
  transcriptPath: string | null;
  cwd: string | null;
  /** Set when the event comes from inside a subagent (PostToolUse, SubagentStop). */
  agentId: string | null;
}

/** Events this integration acts on; anything else parses as `other` and is ignored. */
export type KnownHookEvent = HookBase &
  (
    | { kind: "SessionStart"; source: string | null }
    | { kind: "UserPromptSubmit"; prompt: string; source: string | null }
    | { kind: "PostToolUse"; toolName: string; toolInput: unknown; toolResponse: unknown }
    | {
        kind: "Stop";
        stopHookActive: boolean;
        lastAssistantMessage: string | null;
        backgroundTasks: unknown[];
        sessionCrons: unknown[];
        permissionMode: string | null;
      }
    | { kind: "SubagentStop" }
    | {
        kind: "StopFailure";
        error: string | null;
        errorDetails: string | null;
        lastAssistantMessage: string | null;
      }
  );

export type HookEvent = KnownHookEvent | { kind: "other"; name: string };

const KNOWN = new Set([
  "SessionStart",
  "UserPromptSubmit",
  "PostToolUse",
  "Stop",
  "SubagentStop",
  "StopFailure",
]);

export class HookInputError extends Error {
  override name = "HookInputError";
}

const {
  optionalString,
  requiredString,
  requiredText,
  optionalArray,
  optionalBoolean,
  toolCall,
  parseObject,
} = fieldReaders(HookInputError);

/**
 * Parses the text a hook read from stdin. Throws a HookInputError naming the
 * bad field. `adapt` renames another host's fields to Claude Code's first.
 */
export function parseHookInput(
  text: string,
  adapt?: (raw: Record<string, unknown>) => Record<string, unknown>,
): HookEvent {
  const raw = parseObject(text);
  return parseHookObject(adapt ? adapt(raw) : raw);
}

/** Parses an already-decoded hook input object. */
export function parseHookObject(raw: Record<string, unknown>): HookEvent {
  const name = requiredString(raw, "hook_event_name");
  if (!KNOWN.has(name)) return { kind: "other", name };
  const base: HookBase = {
    sessionId: requiredString(raw, "session_id"),
    transcriptPath: optionalString(raw, "transcript_path"),
    cwd: optionalString(raw, "cwd"),
    agentId: optionalString(raw, "agent_id"),
  };
  switch (name) {
    case "SessionStart":
      return { ...base, kind: name, source: optionalString(raw, "source") };
    case "UserPromptSubmit": {
      const prompt = requiredText(raw, "prompt");
      return { ...base, kind: name, prompt, source: optionalString(raw, "source") };
    }
    case "PostToolUse":
      return { ...base, kind: name, ...toolCall(raw) };
    case "Stop":
      return {
        ...base,
        kind: name,
        stopHookActive: optionalBoolean(raw, "stop_hook_active"),
        lastAssistantMessage: optionalString(raw, "last_assistant_message"),
        backgroundTasks: optionalArray(raw, "background_tasks"),
        sessionCrons: optionalArray(raw, "session_crons"),
        permissionMode: optionalString(raw, "permission_mode"),
      };
    case "SubagentStop":
      return { ...base, kind: name };
    case "StopFailure":
      return {
        ...base,
        kind: name,
        error: optionalString(raw, "error"),
        errorDetails: optionalString(raw, "error_details"),
        lastAssistantMessage: optionalString(raw, "last_assistant_message"),
      };
    default:
      return { kind: "other", name };
  }
}
