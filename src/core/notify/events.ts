import { emptyList } from "../todo/model.js";
import { fingerprintList, summarize } from "../todo/summary.js";
import type {
  CheckResult,
  ContinuationState,
  Decision,
  Limits,
  NotifiedMemory,
  SkipReason,
  TodoList,
  TodoSummary,
} from "../types.js";

/**
 * Notifications: which of a decision's outcomes a person wants to hear about.
 * One pure function (`notificationsFor`) maps a decision and the state before
 * it to the events to send and the state that records them as sent; the
 * caller persists that state BEFORE delivering, so no event is ever sent twice
 * for one episode, whichever process decides.
 */

export type NotifyEvent = "stopped" | "needs-input" | "out-of-budget" | "verify-failed" | "done";

export const NOTIFY_EVENTS: readonly NotifyEvent[] = [
  "stopped",
  "needs-input",
  "out-of-budget",
  "verify-failed",
  "done",
];

/**
 * Budget reasons: `out-of-budget`. `max-cost` is a string here, not a typed
 * reason, so this table holds whether or not the engine knows money limits.
 */
const OUT_OF_BUDGET: ReadonlyMap<string, string> = new Map([
  ["max-auto-turns", "maxAutoTurns"],
  ["max-tokens", "maxTokens"],
  ["max-wall-clock", "maxWallClockMs"],
  ["max-cost", "maxCostUsd"],
]);

/** Reasons that end the episode's nudging for something other than a budget: `stopped`. */
const STOPPED: ReadonlySet<string> = new Set<SkipReason>([
  "stagnation",
  "provider-error",
  "retries-exhausted",
  "too-many-incomplete",
  "verify-unchanged-failure",
  "verify-timed-out",
  "verify-error",
]);

/** The agent waits for the person: a question is pending, or only blocked items are left. */
const NEEDS_INPUT: ReadonlySet<string> = new Set<SkipReason>([
  "awaiting-user",
  "only-blocked-todos",
]);

/** Which limit ran out, how much of it was used, and what it was. */
export interface NotifyLimit {
  /** The skip reason (`max-auto-turns`, `max-tokens`, `max-wall-clock`, `max-cost`). */
  reason: string;
  /** The limit's name in the config (`maxAutoTurns`, ...). */
  name: string;
  max: number | null;
  used: number | null;
}

/** One event to deliver: what the payload says about the decision itself. */
export interface Notification {
  event: NotifyEvent;
  /** The decision's skip reason, or `verify-nudge` for a verification nudge. */
  reason: string;
  limit: NotifyLimit | null;
  episodeId: string | null;
  counts: {
    open: number;
    blocked: number;
    completed: number;
    cancelled: number;
    total: number;
  };
  episode: { autoTurns: number; tokens: number; startedAt: number; costUsd?: number } | null;
  verification: {
    command: string;
    status: string;
    exitCode: number | null;
    signal: string | null;
    outputTail: string;
  } | null;
  at: number;
}

export interface NotifyInput {
  decision: Decision;
  /** The state the decision was made on (after the turn's outcome was recorded). */
  before: ContinuationState;
  summary: TodoSummary;
  limits: Limits;
  now: number;
  /** The events the user asked for (the config's `notify.events`). */
  wanted: readonly NotifyEvent[];
  /**
   * The list the decision was made on: `done` goes out once per finished
   * list (see `NotifiedMemory.doneList`). Absent: only the per-key memory
   * keeps `done` from repeating.
   */
  list?: TodoList;
}

/** The key events are counted under: the episode, or the user's turn before an episode opens. */
export function notifyKey(state: ContinuationState): string {
  return state.episode?.id ?? `turn:${state.lastUserTurnAt ?? "none"}`;
}

/** Which event a decision is, if any (before wanted-ness and dedup). */
export function eventOf(input: Omit<NotifyInput, "wanted" | "now">): NotifyEvent | null {
  const { decision, before, summary, limits } = input;
  if (decision.action === "inject") {
    return decision.verification !== undefined ? "verify-failed" : null;
  }
  const reason: string = decision.reason;
  if (OUT_OF_BUDGET.has(reason)) return "out-of-budget";
  if (NEEDS_INPUT.has(reason)) return "needs-input";
  if (STOPPED.has(reason)) return "stopped";
  if (reason === "cooldown") {
    // Only the cooldown that gives up for the episode is an end; a wait is not.
    const failures = decision.state.episode?.failures ?? 0;
    return failures >= limits.maxDeliveryFailures ? "stopped" : null;
  }
  if (reason === "verified") return "done";
  if (reason === "no-incomplete-todos" && summary.completed > 0 && workedOn(before, summary)) {
    return "done";
  }
  return null;
}

/** The fingerprint of a list with no open item (empty, or all finished). */
let nothingOpen: string | null = null;

/**
 * "Every item completed after work": an episode ran, or the list the user
 * last spoke to differs from the finished one (it had open items, or none
 * at all: a list written and finished in one turn counts). A list already
 * finished when the user spoke looks like an empty one, so it counts too,
 * once per user turn; an unknown start (no user turn recorded) does not.
 */
function workedOn(before: ContinuationState, summary: TodoSummary): boolean {
  if (before.episode !== null) return true;
  const atUserTurn = before.userTurnFingerprint ?? null;
  if (atUserTurn === null) return false;
  nothingOpen ??= summarize(emptyList()).fingerprint;
  return atUserTurn !== summary.fingerprint || atUserTurn === nothingOpen;
}

function limitOf(decision: Decision, limits: Limits, now: number): NotifyLimit | null {
  if (decision.action !== "skip") return null;
  const name = OUT_OF_BUDGET.get(decision.reason);
  if (name === undefined) return null;
  const e = decision.state.episode as
    | (NonNullable<typeof decision.state.episode> & {
        costUsd?: number | null;
      })
    | null;
  const max = (limits as unknown as Record<string, unknown>)[name];
  const used: Record<string, number | null | undefined> = {
    maxAutoTurns: e?.autoTurns,
    maxTokens: e?.tokens,
    maxWallClockMs: e === null ? null : Math.max(0, now - e.startedAt),
    maxCostUsd: e?.costUsd,
  };
  return {
    reason: decision.reason,
    name,
    max: typeof max === "number" ? max : null,
    used: used[name] ?? null,
  };
}

function verificationOf(check: CheckResult | undefined): Notification["verification"] {
  if (check === undefined) return null;
  return {
    command: check.command,
    status: check.status,
    exitCode: check.exitCode,
    signal: check.signal,
    outputTail: check.outputTail,
  };
}

/**
 * The events to send for a decision, and the state to persist (the decision's
 * own, with the events recorded as sent). An event goes out at most once per
 * key (`notifyKey`): a second stop, a second hook process or a retry after a
 * crash finds it recorded. Events not `wanted` are neither sent nor recorded.
 */
export function notificationsFor(input: NotifyInput): {
  notifications: Notification[];
  state: ContinuationState;
} {
  const { decision, summary, limits, now, wanted } = input;
  const stored: NotifiedMemory | null = decision.state.notified ?? null;
  // Open items again: the list's next finish is new work, whatever it looks like then.
  const reopened = summary.incomplete > 0 && stored?.doneList !== undefined;
  const memory: NotifiedMemory | null =
    reopened && stored !== null ? { key: stored.key, events: stored.events } : stored;
  const after: ContinuationState = reopened
    ? { ...decision.state, notified: memory }
    : decision.state;
  const event = eventOf(input);
  if (event === null || !wanted.includes(event)) return { notifications: [], state: after };
  const key = notifyKey(after);
  // An unreadable memory (`*`) counts every event as sent: never twice, even then.
  if (memory?.key === "*") {
    return {
      notifications: [],
      state: { ...after, notified: { key, events: [...NOTIFY_EVENTS] } },
    };
  }
  const sent = memory?.key === key ? memory.events : [];
  if (sent.includes(event)) return { notifications: [], state: after };
  // `done` with no episode open is keyed by the user's turn: without this, a list
  // that stays finished would be announced again at every turn of the user's.
  const done = event === "done" ? doneIdentity(decision, input.list) : null;
  if (done !== null && memory?.doneList === done) return { notifications: [], state: after };
  const doneList = done ?? memory?.doneList;
  const e = after.episode;
  const verification = decision.action === "inject" ? decision.verification : undefined;
  const lastCheck = after.verify?.last ?? undefined;
  const notification: Notification = {
    event,
    reason: decision.action === "inject" ? "verify-nudge" : decision.reason,
    limit: limitOf(decision, limits, now),
    episodeId: e?.id ?? null,
    counts: {
      open: summary.actionable,
      blocked: summary.blocked,
      completed: summary.completed,
      cancelled: summary.cancelled,
      total: summary.total,
    },
    episode:
      e === null
        ? null
        : {
            autoTurns: e.autoTurns,
            tokens: e.tokens,
            startedAt: e.startedAt,
            ...costOf(e),
          },
    verification: verificationOf(
      verification ??
        (event === "done" || event === "stopped" ? checkFor(decision, lastCheck) : undefined),
    ),
    at: now,
  };
  return {
    notifications: [notification],
    state: {
      ...after,
      notified: { key, events: [...sent, event], ...(doneList === undefined ? {} : { doneList }) },
    },
  };
}

/**
 * What a `done` announces: the finished list (its whole fingerprint), and for
 * a verified one the working tree the check passed on, so new work on the
 * code under an unchanged list is news. Null without the list.
 */
function doneIdentity(decision: Decision, list: TodoList | undefined): string | null {
  if (list === undefined) return null;
  const listPrint = fingerprintList(list.todos);
  if (decision.action === "skip" && decision.reason === "verified") {
    return `${listPrint}:${decision.state.verify?.last?.tree ?? ""}`;
  }
  return listPrint;
}

/** The check behind a verification verdict (`verified`, `verify-*`), if this decision is one. */
function checkFor(decision: Decision, last: CheckResult | undefined): CheckResult | undefined {
  if (decision.action !== "skip") return undefined;
  return decision.reason.startsWith("verif") ? last : undefined;
}

function costOf(e: object): { costUsd?: number } {
  const cost = (e as { costUsd?: unknown }).costUsd;
  return typeof cost === "number" && Number.isFinite(cost) ? { costUsd: cost } : {};
}
