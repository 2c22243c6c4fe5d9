import type { Allowance, ContinuationState, Episode, Limits } from "../types.js";

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

/**
 * The user's `resume --add`: adds the allowance to the open episode's limits
 * and lifts a stagnation stop (the count starts over, and the turn the agent
 * last ended is judged afresh rather than against the nudge before it). The
 * nudge the latest outcome already answered stays answered: a raise never
 * makes one turn nudged twice. Throws when no episode is open: budgets are
 * per episode, and the next one opens with the full limits anyway.
 */
export function raiseEpisode(state: ContinuationState, add: Allowance): ContinuationState {
  const episode = state.episode;
  if (episode == null) {
    throw new Error(
      "no episode is open, so there is no budget to raise: the next nudge opens one with the full limits",
    );
  }
  const answered = episode.answeredTurnId ?? null;
  const lastTurn = state.lastOutcome?.turnId ?? null;
  return {
    ...state,
    episode: {
      ...episode,
      raised: addAllowance(episode.raised ?? noAllowance(), add),
      stagnation: 0,
      answeredTurnId: answered !== null && answered === lastTurn ? answered : null,
    },
  };
}
