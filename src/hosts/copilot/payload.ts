/**
 * Copilot CLI's hook payloads, as measured on 1.0.102 (docs/copilot.md). They
 * carry no event name, so the installed command names it (`--event`), and the
 * fields are checked against that event: a payload that does not fit is an
 * error, which allows the stop.
 */

export const COPILOT_EVENTS = ["userPromptSubmitted", "agentStop"] as const;
export type CopilotEventName = (typeof COPILOT_EVENTS)[number];

export type CopilotEvent =
  | { kind: "userPromptSubmitted"; sessionId: string; cwd: string | null; prompt: string }
  | {
      kind: "agentStop";
      sessionId: string;
      cwd: string | null;
      transcriptPath: string | null;
      stopReason: string | null;
      /** A stop right after a block (ours or another hook's). */
      stopHookActive: boolean;
    };

export class CopilotInputError extends Error {}

function optionalString(raw: Record<string, unknown>, key: string): string | null {
  const value = raw[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") {
    throw new CopilotInputError(`${key} must be a string, got ${typeof value}`);
  }
  return value;
}

/** Parses one payload of `event` (stdin of the hook command). */
export function parseCopilotInput(text: string, event: CopilotEventName): CopilotEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new CopilotInputError(`the ${event} payload is not JSON: ${(error as Error).message}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new CopilotInputError(`the ${event} payload must be a JSON object`);
  }
  const record = raw as Record<string, unknown>;
  const sessionId = optionalString(record, "sessionId");
  if (sessionId === null || sessionId === "") {
    throw new CopilotInputError(`the ${event} payload has no sessionId`);
  }
  const cwd = optionalString(record, "cwd");
  if (event === "userPromptSubmitted") {
    const prompt = optionalString(record, "prompt");
    if (prompt === null)
      throw new CopilotInputError("the userPromptSubmitted payload has no prompt");
    return { kind: event, sessionId, cwd, prompt };
  }
  // Subagents have their own stop event; an agent id here means this is not the main agent.
  if (record.agentId !== undefined || record.agentName !== undefined) {
    throw new CopilotInputError("the agentStop payload names a subagent");
  }
  const active = record.stop_hook_active ?? record.stopHookActive ?? false;
  if (typeof active !== "boolean") {
    throw new CopilotInputError(`stop_hook_active must be a boolean, got ${typeof active}`);
  }
  return {
    kind: event,
    sessionId,
    cwd,
    transcriptPath: optionalString(record, "transcriptPath"),
    stopReason: optionalString(record, "stopReason"),
    stopHookActive: active,
  };
}
