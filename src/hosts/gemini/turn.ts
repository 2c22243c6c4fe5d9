import { sha256Hex } from "../../core/hash/sha256.js";
import type { StopReason } from "../../core/types.js";
import type { TurnEvidence } from "./evidence.js";

/**
 * What the BeforeAgent and AfterAgent payloads say about a turn. Pure.
 *
 * Gemini CLI sends an AfterAgent block's reason back through BeforeAgent as
 * if it were a prompt, and also routes some of its own recovery prompts
 * there; neither is a person speaking, so neither may reset the episode.
 * AfterAgent's `prompt_response` is every text the model produced since the
 * user's prompt, joined; it reads "[no response text]" when there is none,
 * which is what a cancelled turn leaves.
 */

/** The first line of every nudge we deliver, so its echo through BeforeAgent is known. */
export const NUDGE_MARKER = "[automatic todo continuation]";

/** What AfterAgent reports when the turn produced no text: the user's cancel. */
export const NO_RESPONSE_TEXT = "[no response text]";

/** Prompts Gemini CLI writes itself: `[System: …]` nudges and its loop-recovery notice. */
const CLI_PROMPT = /^\s*\[?System:/;

/** The AfterAgent reason for a nudge. */
export function nudgeReason(nudgeText: string): string {
  return `${NUDGE_MARKER}\n${nudgeText}`;
}

export function isOurNudge(prompt: string): boolean {
  return prompt.trimStart().startsWith(NUDGE_MARKER);
}

export function isCliPrompt(prompt: string): boolean {
  return CLI_PROMPT.test(prompt);
}

/** A prompt a person wrote: not our nudge, not one of the CLI's own. */
export function isRealUserPrompt(prompt: string): boolean {
  return !isOurNudge(prompt) && !isCliPrompt(prompt);
}

export function isCancelled(promptResponse: string): boolean {
  return promptResponse.trim() === NO_RESPONSE_TEXT;
}

export function stopReasonOf(promptResponse: string): StopReason {
  return isCancelled(promptResponse) ? "aborted" : "stop";
}

/** What the hook knows about the turn an AfterAgent reports. */
export interface TurnFacts {
  /** The user's prompt, as AfterAgent reports it (the same for every continuation of it). */
  prompt: string;
  promptResponse: string;
  /** What the session file shows; null when there is none to read. */
  evidence: TurnEvidence | null;
  /** The outcome our previous AfterAgent recorded, if any. */
  previous: { turnId: string; endedAt: number } | null;
  /** When the user last wrote a prompt, if ever. */
  lastUserTurnAt: number | null;
}

export interface TurnVerdict {
  turnId: string;
  stopReason: StopReason;
}

/** A short, stable digest of a text. */
function digest(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/**
 * The turn's identity and how it ended, from evidence only a model call
 * produces; the todo list plays no part (the agent changing its list, then
 * being cancelled, is not a new turn).
 *
 * - The session file shows a reply recorded since our last decision: a new
 *   turn, named by that reply.
 * - It shows a request with no reply: the call was cut off (Esc in the
 *   interactive CLI, or an error): `aborted`, and no nudge until a real
 *   prompt. AfterAgent repeats the earlier response text then, or adds the
 *   cancelled call's partial text, and `stop_hook_active` is true or false
 *   depending on whether the cut call was our nudge's or a tool response's.
 * - It shows nothing since: no model call ran; the same turn again, never
 *   answered twice (`unknown`, which never nudges).
 * - No session file: the response text is all there is. "[no response
 *   text]" is a cancel; a response identical to the one our last decision
 *   saw, with no prompt from the user since, means no model call ended a
 *   turn in between, which on 0.61 is what a cancel looks like: `aborted`.
 */
export function judgeTurn(facts: TurnFacts): TurnVerdict {
  const { evidence } = facts;
  if (evidence !== null) {
    switch (evidence.kind) {
      case "reply":
        return { turnId: `gemini-reply-${evidence.replyId}`, stopReason: "stop" };
      case "cut-off":
        return { turnId: `gemini-cut-${evidence.requestId}`, stopReason: "aborted" };
      case "no-call":
        return { turnId: `gemini-reply-${evidence.lastReplyId ?? "none"}`, stopReason: "unknown" };
    }
  }
  const turnId = `gemini-text-${facts.promptResponse.length}-${digest(`${facts.prompt}\0${facts.promptResponse}`)}`;
  if (isCancelled(facts.promptResponse)) return { turnId, stopReason: "aborted" };
  const { previous, lastUserTurnAt } = facts;
  const userSpokeSince =
    previous !== null && lastUserTurnAt !== null && lastUserTurnAt > previous.endedAt;
  if (previous?.turnId === turnId && !userSpokeSince) return { turnId, stopReason: "aborted" };
  return { turnId, stopReason: "stop" };
}

/** The last paragraph of the response: what a closing question is looked for in. */
export function lastMessageOf(promptResponse: string): string | null {
  if (isCancelled(promptResponse)) return null;
  const trimmed = promptResponse.trim();
  return trimmed === "" ? null : trimmed;
}
