import type { DecisionLogEntry, Episode, Limits } from "../core/types.js";

/**
 * How fast an open episode spends, and when at that pace it reaches its
 * nearest limit. Pure: the rates come from the decisions the log keeps (each
 * carries the episode's running totals) and the episode as stored now.
 */

/** The recent window the rates are taken over. */
export const BURN_WINDOW_MS = 15 * 60_000;

export interface BurnRate {
  tokensPerMinute: number;
  nudgesPerMinute: number;
  /** Null when the episode's cost is not known (no price, or no cost recorded). */
  usdPerHour: number | null;
}

/**
 * The cost cap comes with cost tracking (`maxCostUsd` in the limits); read
 * where present, so the dashboard works with limits that have none.
 */
export interface CostLimit {
  maxCostUsd?: number | null;
}

export type LimitName = "nudges" | "tokens" | "wall clock" | "cost";

export interface Projection {
  limit: LimitName;
  /** Time until the limit is reached at the current pace; 0 when it already is. */
  ms: number;
}

interface Point {
  at: number;
  tokens: number;
  nudges: number;
}

/** The episode's totals at `at`: the newest logged point at or before it, else none spent. */
function totalsAt(points: readonly Point[], at: number): Point {
  let found: Point = { at, tokens: 0, nudges: 0 };
  for (const p of points) {
    if (p.at <= at) found = p;
    else break;
  }
  return found;
}

/**
 * The episode's spend per minute over the last `windowMs` (or since it
 * started, when that is later): its totals now, less its totals at the start
 * of the window as the log recorded them. A session that went quiet slows to
 * zero as the window moves past its last spend.
 */
/** What the rates need of an episode. */
export type EpisodeSpend = Pick<
  Episode,
  "id" | "startedAt" | "autoTurns" | "tokens" | "costUsd" | "unpricedTurns"
>;

export function burnRate(
  episode: EpisodeSpend,
  log: readonly Pick<DecisionLogEntry, "at" | "tokens" | "autoTurns" | "episodeId" | "action">[],
  now: number,
  windowMs = BURN_WINDOW_MS,
): BurnRate {
  const from = Math.max(episode.startedAt, now - windowMs);
  const minutes = (now - from) / 60_000;
  const points = log
    .filter((e) => e.episodeId === episode.id && e.action !== "delivery-failed")
    .map((e) => ({ at: e.at, tokens: e.tokens, nudges: e.autoTurns }))
    .sort((a, b) => a.at - b.at);
  const start = totalsAt(points, from);
  const perMinute = (value: number) => (minutes > 0 ? Math.max(0, value) / minutes : 0);
  const tokensPerMinute = perMinute(episode.tokens - start.tokens);
  // Cost follows tokens at the episode's own average price: logs need not carry cost.
  const cost = knownCost(episode);
  const usdPerHour =
    cost === null ? null : episode.tokens > 0 ? (tokensPerMinute * 60 * cost) / episode.tokens : 0;
  return {
    tokensPerMinute,
    nudgesPerMinute: perMinute(episode.autoTurns - start.nudges),
    usdPerHour,
  };
}

/** The episode's cost when every turn was priced; null when some turn was not. */
export function knownCost(episode: EpisodeSpend): number | null {
  if (episode.costUsd === undefined) return null;
  if ((episode.unpricedTurns ?? 0) > 0) return null;
  return episode.costUsd;
}

/** Budgets at or above this limit mean "no limit" (presets use a huge number). */
const UNLIMITED_AT = Number.MAX_SAFE_INTEGER / 2;

function limited(limit: number | null | undefined): limit is number {
  return typeof limit === "number" && limit > 0 && limit < UNLIMITED_AT;
}

/**
 * The nearest limit at the current pace: for each limit set, what is left of
 * it divided by how fast it goes (the wall clock always goes at one second
 * per second). A spent limit is reached now (0); a limit nothing spends is
 * never reached. Null when no limit is set or none is being spent.
 */
export function projectNearestLimit(
  episode: EpisodeSpend,
  rate: BurnRate,
  limits: Pick<Limits, "maxAutoTurns" | "maxTokens" | "maxWallClockMs"> & CostLimit,
  now: number,
): Projection | null {
  const candidates: Projection[] = [];
  const consider = (limit: LimitName, left: number, perMs: number) => {
    if (left <= 0) return void candidates.push({ limit, ms: 0 });
    // A rate so small that the limit lies beyond any representable time (a denormal rate gives
    // Infinity) is no limit the episode will reach.
    const ms = perMs > 0 ? left / perMs : Number.POSITIVE_INFINITY;
    if (Number.isFinite(ms)) candidates.push({ limit, ms });
  };
  if (limited(limits.maxAutoTurns)) {
    consider("nudges", limits.maxAutoTurns - episode.autoTurns, rate.nudgesPerMinute / 60_000);
  }
  if (limited(limits.maxTokens)) {
    consider("tokens", limits.maxTokens - episode.tokens, rate.tokensPerMinute / 60_000);
  }
  if (limited(limits.maxWallClockMs)) {
    consider("wall clock", episode.startedAt + limits.maxWallClockMs - now, 1);
  }
  if (limited(limits.maxCostUsd) && episode.costUsd !== undefined) {
    consider("cost", limits.maxCostUsd - episode.costUsd, (rate.usdPerHour ?? 0) / 3_600_000);
  }
  let nearest: Projection | null = null;
  for (const c of candidates) if (nearest === null || c.ms < nearest.ms) nearest = c;
  return nearest;
}
