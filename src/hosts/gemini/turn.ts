import type { StopReason } from "../../core/types.js";

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

/**
 * The turn's identity: the response's length and the list's revision. A
 * continuation that wrote text or changed the list is a new turn; an
 * AfterAgent with neither is the same turn again (the CLI firing the hook
 * without a model call, as it does once its loop detector has tripped), and
 * the engine never answers one turn twice.
 */
export function turnIdOf(promptResponse: string, todosRevision: number): string {
  return `gemini-r${promptResponse.length}-v${todosRevision}`;
}

/** The last paragraph of the response: what a closing question is looked for in. */
export function lastMessageOf(promptResponse: string): string | null {
  if (isCancelled(promptResponse)) return null;
  const trimmed = promptResponse.trim();
  return trimmed === "" ? null : trimmed;
}
