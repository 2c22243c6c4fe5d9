import type { Episode, Limits, SkipReason, TodoSummary } from "../types.js";

/**
 * The hard ceilings, in ladder order. Each comparison is written as "allowed
 * only while below", so a NaN limit or counter skips instead of passing.
 * Before the first nudge there is no episode: its counters are all zero.
 */
export function budgetSkip(
  episode: Episode | null,
  summary: TodoSummary,
  limits: Limits,
  now: number,
): SkipReason | null {
  if (!((episode?.autoTurns ?? 0) < limits.maxAutoTurns)) return "max-auto-turns";
  if (!((episode?.tokens ?? 0) < limits.maxTokens)) return "max-tokens";
  // A start in the future cannot be trusted (a corrupt document or a clock that
  // stepped back): it would stretch the budget, so it counts as spent.
  const elapsed = episode === null ? 0 : now - episode.startedAt;
  if (!(elapsed >= 0 && elapsed < limits.maxWallClockMs)) return "max-wall-clock";
  if (limits.maxIncomplete != null && !(summary.incomplete <= limits.maxIncomplete)) {
    return "too-many-incomplete";
  }
  return null;
}
