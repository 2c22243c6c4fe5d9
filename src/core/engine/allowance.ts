import type { Allowance, Episode, Limits } from "../types.js";

/** Nothing added. */
export function noAllowance(): Allowance {
  return { nudges: 0, tokens: 0, timeMs: 0, costUsd: 0 };
}

/** Adds two counts without leaving the safe-integer range (a limit stays JSON-safe). */
function addCount(a: number, b: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, a + b);
}

/** Two allowances together: what a second `resume --add` on the same episode leaves. */
export function addAllowance(a: Allowance, b: Allowance): Allowance {
  return {
    nudges: addCount(a.nudges, b.nudges),
    tokens: addCount(a.tokens, b.tokens),
    timeMs: addCount(a.timeMs, b.timeMs),
    costUsd: a.costUsd + b.costUsd,
  };
}

/**
 * The limits that hold for this episode: the configured ones plus what the
 * user added to it. Without an episode, or without a raise, the limits as
 * given (the same object). A cost added to "no cost limit" stays no limit.
 */
export function episodeLimits(limits: Limits, episode: Episode | null | undefined): Limits {
  const raised = episode?.raised;
  if (raised == null) return limits;
  return {
    ...limits,
    maxAutoTurns: addCount(limits.maxAutoTurns, raised.nudges),
    maxTokens: addCount(limits.maxTokens, raised.tokens),
    maxWallClockMs: addCount(limits.maxWallClockMs, raised.timeMs),
    maxCostUsd: limits.maxCostUsd === null ? null : limits.maxCostUsd + raised.costUsd,
  };
}
