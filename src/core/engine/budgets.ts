import { outcomeCost } from "../cost/price.js";
import type { Episode, Limits, SkipReason, TodoSummary, TurnOutcome } from "../types.js";
import { episodeLimits } from "./allowance.js";

/**
 * The hard ceilings, in ladder order, each raised by what the user added to
 * the episode (`resume --add`). Each comparison is written as "allowed only
 * while below", so a NaN limit or counter skips instead of passing. Before
 * the first nudge there is no episode: its counters are all zero.
 *
 * The cost limit never takes an unknown cost for free: while `maxCostUsd` is
 * set, a turn of the episode that could not be priced (its model has no
 * price), or a turn to answer that cannot be, skips `max-cost` as surely as
 * a spent budget. The priced part trips the limit as usual.
 */
export function budgetSkip(
  episode: Episode | null,
  summary: TodoSummary,
  base: Limits,
  now: number,
  outcome: TurnOutcome | null = null,
): SkipReason | null {
  const limits = episodeLimits(base, episode);
  if (!((episode?.autoTurns ?? 0) < limits.maxAutoTurns)) return "max-auto-turns";
  if (!((episode?.tokens ?? 0) < limits.maxTokens)) return "max-tokens";
  // A start in the future cannot be trusted (a corrupt document or a clock that
  // stepped back): it would stretch the budget, so it counts as spent.
  const elapsed = episode === null ? 0 : now - episode.startedAt;
  if (!(elapsed >= 0 && elapsed < limits.maxWallClockMs)) return "max-wall-clock";
  if (limits.maxCostUsd !== null && costUnknownOrSpent(episode, outcome, limits.maxCostUsd)) {
    return "max-cost";
  }
  if (limits.maxIncomplete != null && !(summary.incomplete <= limits.maxIncomplete)) {
    return "too-many-incomplete";
  }
  return null;
}

function costUnknownOrSpent(
  episode: Episode | null,
  outcome: TurnOutcome | null,
  max: number,
): boolean {
  if ((episode?.unpricedTurns ?? 0) !== 0) return true;
  if (outcome != null && outcomeCost(outcome) === null) return true;
  return !((episode?.costUsd ?? 0) < max);
}
