import type { Episode, Limits, TodoSummary } from "../types.js";

export interface StagnationVerdict {
  /** The stagnation count as it stands after this decision. */
  count: number;
  /** True when the count has reached the limit: skip `stagnation`. */
  stagnant: boolean;
}

/**
 * Did the agent make progress since the last nudge?
 *
 * - `fingerprint` (seed 000): the canonical incomplete set changed. A reorder
 *   or whitespace edit is no change, but a reword or split is.
 * - `strict`: fewer incomplete items than ever before in the episode, or more
 *   completed ones. Toggling a status back and forth, rewording, or splitting
 *   items never beats both marks, so it never counts.
 *
 * A mark the episode lacks (only a hand-edited document can lack one) means
 * progress cannot be shown, which counts as none.
 */
export function madeProgress(
  episode: Episode,
  summary: TodoSummary,
  mode: Limits["stagnationMode"],
): boolean {
  if (mode === "fingerprint") {
    return episode.lastFingerprint !== null && summary.fingerprint !== episode.lastFingerprint;
  }
  const fewerOpen = episode.minIncomplete !== null && summary.incomplete < episode.minIncomplete;
  const moreDone = episode.maxCompleted !== null && summary.completed > episode.maxCompleted;
  return fewerOpen || moreDone;
}

/**
 * Judges stagnation from the episode as it stood at the last nudge and the
 * list as it is now. Nothing is written on a skip, so deciding again on the
 * same inputs gives the same answer: duplicate idles cannot count twice. Only
 * a turn that answered a delivered nudge is judged (`answeredTurnId` is set and
 * the outcome is newer, which the caller has checked), so the first decision
 * of an episode, and the retry of a failed delivery, are never stagnant.
 * A limit of 0 disables the check; the count is still kept.
 */
export function judgeStagnation(
  episode: Episode | null,
  summary: TodoSummary,
  limits: Pick<Limits, "stagnationLimit" | "stagnationMode">,
): StagnationVerdict {
  if (episode === null || episode.answeredTurnId == null) {
    return { count: episode?.stagnation ?? 0, stagnant: false };
  }
  const count = madeProgress(episode, summary, limits.stagnationMode)
    ? 0
    : Math.min(Number.MAX_SAFE_INTEGER, episode.stagnation + 1);
  const limit = limits.stagnationLimit;
  // Written so that a NaN limit skips: only an exact 0 disables.
  const stagnant = limit !== 0 && !(count < limit);
  return { count, stagnant };
}
