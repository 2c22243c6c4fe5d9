import type { DecisionLogEntry, ScopeSnapshot, SkipReason, TodoSummary } from "../types.js";

/**
 * Retention: which scopes are old enough to archive or delete. Pure, so the
 * `prune` command and the dashboard ("hide finished scopes older than a
 * day") judge a scope alike.
 */

/** What `prune --state` filters on. */
export type RetentionState = "idle" | "done" | "stopped" | "parked" | "out-of-budget";

export const RETENTION_STATES: readonly RetentionState[] = [
  "idle",
  "done",
  "stopped",
  "parked",
  "out-of-budget",
];

/** What `prune` touches when no `--state` is given. */
export const DEFAULT_PRUNE_STATES: readonly RetentionState[] = ["idle", "done", "stopped"];

export interface StaleRow {
  /** The newest moment anything happened in the scope (ms), or null when unknown. */
  lastActivityAt: number | null;
  /** A nudge is in flight or the agent works on one: never stale. */
  openEpisode: boolean;
}

/**
 * Whether a scope is older than `olderThanMs` at `now` and not in the middle
 * of an episode. An unknown age is never stale: nothing is removed on a guess.
 */
export function isStale(row: StaleRow, now: number, olderThanMs: number): boolean {
  if (row.openEpisode || row.lastActivityAt === null) return false;
  if (!Number.isFinite(olderThanMs) || olderThanMs < 0) return false;
  return now - row.lastActivityAt >= olderThanMs;
}

const BUDGET: ReadonlySet<string> = new Set<string>([
  "max-auto-turns",
  "max-tokens",
  "max-wall-clock",
  "max-cost",
  "stagnation",
] satisfies string[]);

/** The newest time among the state's and the log's own timestamps. */
export function lastActivityOf(
  snapshot: ScopeSnapshot,
  last: DecisionLogEntry | null,
): number | null {
  const s = snapshot.state;
  const times = [
    last?.at,
    s.lastUserTurnAt,
    s.lastOutcome?.endedAt,
    s.episode?.startedAt,
    s.episode?.lastInjectionAt,
    s.episode?.lastFailureAt,
    s.verify?.last?.startedAt,
  ].filter((t): t is number => typeof t === "number" && Number.isFinite(t));
  return times.length === 0 ? null : Math.max(...times);
}

/**
 * An episode is open while its latest decision nudged (the agent is working
 * on that nudge) or a delivery just failed (a retry may follow). An episode
 * that ended in a skip (budget, stagnation, done) waits only for the user.
 */
export function episodeOpen(snapshot: ScopeSnapshot, last: DecisionLogEntry | null): boolean {
  if (snapshot.state.episode === null) return false;
  return last === null || last.action !== "skip";
}

/** The scope's state in `prune --state` words. */
export function retentionStateOf(
  snapshot: ScopeSnapshot,
  summary: TodoSummary,
  last: DecisionLogEntry | null,
): RetentionState {
  if (snapshot.state.stopped) return "stopped";
  const reason: SkipReason | null = last?.action === "skip" ? last.reason : null;
  if (reason !== null && BUDGET.has(reason)) return "out-of-budget";
  if (summary.total > 0 && summary.incomplete === 0) return "done";
  if (summary.actionable === 0 && summary.blocked > 0) return "parked";
  return "idle";
}
