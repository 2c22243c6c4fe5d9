import type { ContinuationState, DecisionLogEntry, TodoSummary } from "../core/types.js";
import type { ScopeStateName } from "./view-model.js";

/**
 * The overview's groups: what a session needs from the person watching many
 * of them. Pure; decided from what the row already holds (its state from the
 * dry run, its list summary, its stored state and its last logged decision).
 */
export type GroupName = "needs-you" | "working" | "idle" | "done" | "stopped" | "out-of-budget";

/** In the order the overview shows them: what needs someone first. */
export const GROUP_NAMES: readonly GroupName[] = [
  "needs-you",
  "working",
  "out-of-budget",
  "stopped",
  "idle",
  "done",
];

export const GROUP_WORDS: Record<GroupName, string> = {
  "needs-you": "needs you",
  working: "working",
  idle: "idle",
  done: "done",
  stopped: "stopped",
  "out-of-budget": "out of budget",
};

/** Skip reasons that end an episode on a spent budget ("max-cost" comes with cost caps). */
const BUDGET_REASONS: ReadonlySet<string> = new Set([
  "max-auto-turns",
  "max-tokens",
  "max-wall-clock",
  "max-cost",
  "too-many-incomplete",
  "cooldown",
  "retries-exhausted",
]);

/** Skip reasons that end an episode without a budget spent: no progress, or the same failing check. */
const ENDED_REASONS: ReadonlySet<string> = new Set(["stagnation", "verify-unchanged-failure"]);

/** Skip reasons of a session that is busy by itself: nothing to do but wait. */
const BUSY_REASONS: ReadonlySet<string> = new Set([
  "background-work",
  "recovering",
  "host-goal-active",
]);

export interface GroupInput {
  state: ScopeStateName;
  /** Why the dry run would skip now (null when it would nudge). */
  reason: string | null;
  summary: Pick<TodoSummary, "actionable" | "blocked" | "total">;
  stored: Pick<ContinuationState, "stopped" | "lastUserTurnAt" | "verify">;
  /** The newest decision in the log, or null (its reason as a string: newer hosts log more). */
  last: (Pick<DecisionLogEntry, "at"> & { reason: string | null }) | null;
}

export interface Grouping {
  group: GroupName;
  /** Why, in a few words ("a question is waiting", "max-tokens"). */
  why: string;
}

/**
 * The group of one scope. A question only the host can see (`awaiting-user`)
 * reaches the dashboard through the log, so the last decision counts until a
 * real user turn answers it; everything else comes from the dry run, as the
 * state column does.
 */
export function groupOf(input: GroupInput): Grouping {
  const { state, reason, summary, stored, last } = input;
  if (state === "unreadable") return { group: "needs-you", why: "the store cannot read it" };
  if (stored.stopped) return { group: "stopped", why: "stopped by the user" };
  const lastReason = last?.reason ?? null;
  const answered = last !== null && (stored.lastUserTurnAt ?? 0) > last.at;
  if (lastReason === "awaiting-user" && !answered) {
    return { group: "needs-you", why: "a question is waiting" };
  }
  if (state === "parked") return { group: "needs-you", why: "only blocked items remain" };
  const check = stored.verify?.last ?? null;
  const listDone = summary.total > 0 && summary.actionable === 0;
  if (check !== null && check.status === "failed" && listDone && stored.verify?.halted !== true) {
    return { group: "needs-you", why: "the check fails" };
  }
  if (reason !== null && BUDGET_REASONS.has(reason)) return { group: "out-of-budget", why: reason };
  if (
    lastReason !== null &&
    BUDGET_REASONS.has(lastReason) &&
    summary.actionable > 0 &&
    !answered
  ) {
    return { group: "out-of-budget", why: lastReason };
  }
  const ended =
    (reason !== null && ENDED_REASONS.has(reason) && reason) ||
    (lastReason !== null && ENDED_REASONS.has(lastReason) && !answered && lastReason) ||
    (stored.verify?.halted === true && "verify-unchanged-failure");
  if (ended) return { group: "stopped", why: ended };
  if (listDone && summary.blocked === 0) return { group: "done", why: "every item is done" };
  if (state === "nudging") return { group: "working", why: "being nudged" };
  if (reason !== null && BUSY_REASONS.has(reason)) return { group: "working", why: reason };
  return { group: "idle", why: reason ?? "nothing to do" };
}

/** Groups whose scopes are finished: hidden from the overview once older than a day. */
export function isFinished(group: GroupName): boolean {
  return group !== "needs-you" && group !== "working";
}
