import { outcomeCost } from "../cost/price.js";
import type { Episode, TokenMode, TokenUsage, TurnOutcome } from "../types.js";

/**
 * One usage figure as a budget can trust it: missing or NaN is 0 (unknown
 * spend is no spend), negatives are 0, fractions round up, and anything too
 * large to stay a safe integer is capped (an infinite figure trips the budget
 * instead of vanishing).
 */
function tokens(value: unknown): number {
  if (typeof value !== "number" || Number.isNaN(value) || value <= 0) return 0;
  return value >= Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : Math.ceil(value);
}

/** Adds two budget figures without leaving the safe-integer range the parser accepts. */
export function addTokens(a: number, b: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, tokens(a) + tokens(b));
}

/**
 * What one turn costs against `maxTokens`.
 *
 * - `spend`: output + uncached input + cache writes. Cache reads are left out:
 *   every turn re-reads the whole context, so counting them would trip the
 *   budget on the first turn of any long session.
 * - `total`: the provider's total, cached input included (seed 000). When a
 *   host reports no total, the sum of the parts stands in for it.
 */
export function turnSpend(usage: Partial<TokenUsage> | null | undefined, mode: TokenMode): number {
  if (usage === null || typeof usage !== "object") return 0;
  const parts = addTokens(addTokens(usage.output ?? 0, usage.input ?? 0), usage.cacheWrite ?? 0);
  if (mode === "total") {
    return Math.max(tokens(usage.total), addTokens(parts, usage.cacheRead ?? 0));
  }
  return parts;
}

/**
 * Folds an outcome's spend into the episode exactly once: the episode
 * remembers the last turn it counted, so recording and deciding may both fold
 * without counting a turn twice. Without an episode there is nothing to
 * charge: the turn before the first nudge is the user's, not an automatic one.
 */
export function foldSpend(
  episode: Episode | null | undefined,
  outcome: TurnOutcome | null | undefined,
  mode: TokenMode,
): Episode | null {
  if (episode == null || outcome == null || outcome.turnId === episode.lastCountedTurnId) {
    return episode ?? null;
  }
  const next: Episode = {
    ...episode,
    tokens: addTokens(episode.tokens, turnSpend(outcome.usage, mode)),
    lastCountedTurnId: outcome.turnId,
  };
  // Money is kept beside tokens; the fields appear only once there is something to say.
  const cost = outcomeCost(outcome);
  if (cost === null)
    next.unpricedTurns = Math.min(Number.MAX_SAFE_INTEGER, (episode.unpricedTurns ?? 0) + 1);
  else if (cost > 0 || episode.costUsd !== undefined) next.costUsd = (episode.costUsd ?? 0) + cost;
  if (typeof outcome.model === "string" && outcome.model !== "") next.model = outcome.model;
  return next;
}
