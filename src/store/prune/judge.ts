import {
  episodeOpen,
  isStale,
  lastActivityOf,
  type RetentionState,
  retentionStateOf,
} from "../../core/notify/stale.js";
import { summarize } from "../../core/todo/summary.js";
import type { DecisionLogEntry, ScopeSnapshot } from "../../core/types.js";

export interface PruneCriteria {
  now: number;
  olderThanMs: number;
  states: readonly RetentionState[];
}

export type Judgement =
  | { prune: true; state: RetentionState; lastActivityAt: number }
  | {
      prune: false;
      why: "recent" | "open-episode" | "state" | "unknown-age";
      state: RetentionState;
    };

/** Whether one scope, as read, is to be pruned; the same rule before and under the lock. */
export function judgeScope(
  snapshot: ScopeSnapshot,
  last: DecisionLogEntry | null,
  criteria: PruneCriteria,
): Judgement {
  const state = retentionStateOf(snapshot, summarize(snapshot.todos), last);
  const lastActivityAt = lastActivityOf(snapshot, last);
  const openEpisode = episodeOpen(snapshot, last);
  if (openEpisode) return { prune: false, why: "open-episode", state };
  if (lastActivityAt === null) return { prune: false, why: "unknown-age", state };
  if (!isStale({ lastActivityAt, openEpisode }, criteria.now, criteria.olderThanMs)) {
    return { prune: false, why: "recent", state };
  }
  if (!criteria.states.includes(state)) return { prune: false, why: "state", state };
  return { prune: true, state, lastActivityAt };
}
