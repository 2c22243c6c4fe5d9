import { fieldReaders } from "../hook-kit/fields.js";

/**
 * Copilot CLI's hook payloads, as measured on 1.0.102 (docs/copilot.md). They
 * carry no event name, so the installed command names it (`--event`), and the
 * fields are checked against that event: a payload that does not fit is an
 * error, which allows the stop.
 */

export const COPILOT_EVENTS = ["userPromptSubmitted", "agentStop"] as const;
export type CopilotEventName = (typeof COPILOT_EVENTS)[number];

export type CopilotEvent =
  | {
      kind: "userPromptSubmitted";
      sessionId: string;
      cwd: string | null;
      /** When Copilot fired it (ms): the same in every hooks file's run of one event. */
      timestamp: number | null;
      prompt: string;
    }
  | {
      kind: "agentStop";
      sessionId: string;
      cwd: string | null;
      timestamp: number | null;
      transcriptPath: string | null;
      stopReason: string | null;
      /** A stop right after a block (ours or another hook's). */
      stopHookActive: boolean;
    }
  | {
      /**
       * Any event of a subagent (`task`): measured on 1.0.102, its
       * `userPromptSubmitted` and `agentStop` come to the same hooks, with the
       * agent's own id as `sessionId` plus `agentId`, `agentType`, `parentAgentId`.
       */
      kind: "subagent";
      event: CopilotEventName;
      sessionId: string;
      cwd: string | null;
      agentType: string | null;
    };

export class CopilotInputError extends Error {}

const { optionalString, requiredString, requiredText, optionalBoolean, parseObject } =
  fieldReaders(CopilotInputError);

/** Parses one payload of `event` (stdin of the hook command). */
export function parseCopilotInput(text: string, event: CopilotEventName): CopilotEvent {
  const raw = parseObject(text);
  const sessionId = requiredString(raw, "sessionId");
  const cwd = optionalString(raw, "cwd");
  // Not the main agent: neither its prompt nor its stop is the session's (its list is the parent's).
  if (raw.agentId !== undefined || raw.parentAgentId !== undefined || raw.agentName !== undefined) {
    return { kind: "subagent", event, sessionId, cwd, agentType: optionalString(raw, "agentType") };
  }
  const stamp = raw.timestamp;
  const timestamp = typeof stamp === "number" && Number.isSafeInteger(stamp) ? stamp : null;
  if (event === "userPromptSubmitted") {
    return { kind: event, sessionId, cwd, timestamp, prompt: requiredText(raw, "prompt") };
  }
  const active = raw.stop_hook_active === undefined ? "stopHookActive" : "stop_hook_active";
  return {
    kind: event,
    sessionId,
    cwd,
    timestamp,
    transcriptPath: optionalString(raw, "transcriptPath"),
    stopReason: optionalString(raw, "stopReason"),
    stopHookActive: optionalBoolean(raw, active),
  };
}
