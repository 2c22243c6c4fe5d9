import type { RecordedMessage } from "./usage.js";

/**
 * What the session file says ended the turn an AfterAgent reports. Pure.
 *
 * Gemini CLI 0.61 records the request of every model call (the prompt, our
 * nudge, a tool's response: type `user`) before the call, and the model's
 * reply (type `gemini`) only once its stream has finished. A call the user
 * cancels (Esc) never gets its reply recorded, yet AfterAgent still fires
 * for it, with the response text of the calls before it and a list the
 * agent may have changed since our last nudge. So, looking only at what was
 * recorded after the previous AfterAgent (`since`):
 *
 * - the last record is a reply: a model call finished and ended the turn;
 * - the last record is a request: its call was cut off (Esc, or an error):
 *   no nudge may follow it;
 * - nothing was recorded: no model call ran at all (the CLI firing the hook
 *   again, as it does once its loop detector has tripped).
 */
export type TurnEvidence =
  | { kind: "reply"; replyId: string }
  | { kind: "cut-off"; requestId: string }
  | { kind: "no-call"; lastReplyId: string | null };

const at = (message: RecordedMessage): number =>
  typeof message.timestamp === "string" ? Date.parse(message.timestamp) : Number.NaN;

/** The evidence in a session's messages (in recorded order) for a turn that ended after `since` (ms). */
export function turnEvidence(messages: readonly RecordedMessage[], since: number): TurnEvidence {
  let last: RecordedMessage | null = null;
  let lastReplyId: string | null = null;
  for (const message of messages) {
    if (message.type !== "user" && message.type !== "gemini") continue;
    last = message;
    if (message.type === "gemini") lastReplyId = message.id;
  }
  // A record without a readable time cannot be placed after `since`: it counts as old.
  if (last === null || !(at(last) > since)) return { kind: "no-call", lastReplyId };
  return last.type === "gemini"
    ? { kind: "reply", replyId: last.id }
    : { kind: "cut-off", requestId: last.id };
}
