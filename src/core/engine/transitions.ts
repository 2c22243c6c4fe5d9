import type {
  ContinuationState,
  Reminder,
  StopReason,
  TokenMode,
  TokenUsage,
  TurnOutcome,
} from "../types.js";
import { foldSpend } from "./spend.js";
import { MAX_REMINDERS, STOP_REASONS } from "./state.js";

/**
 * The pure state changes around a decision. Each returns a new state and
 * never mutates its input; bad input throws an error naming the field, before
 * anything changes, so a caller's store keeps what it had.
 */

const CLEAN_ENDINGS: ReadonlySet<StopReason> = new Set(["stop", "tool_use", "length"]);

const REMINDER_KINDS: readonly Reminder["kind"][] = [
  "user-edit",
  "write-failed",
  "channel",
  "custom",
];
const USAGE_FIELDS: readonly (keyof TokenUsage)[] = [
  "input",
  "output",
  "cacheRead",
  "cacheWrite",
  "total",
];

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  return value === null ? "null" : typeof value === "object" ? "an object" : String(value);
}

function checkTime(where: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new Error(`${where} must be a finite, non-negative time in ms, got ${describe(value)}`);
  }
  return value;
}

function checkOutcome(raw: unknown): TurnOutcome {
  const where = "onTurnOutcome: outcome";
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new Error(`${where} must be an object, got ${describe(raw)}`);
  }
  const o = raw as Record<string, unknown>;
  if (typeof o.turnId !== "string" || o.turnId === "") {
    throw new Error(`${where}.turnId must be a non-empty string, got ${describe(o.turnId)}`);
  }
  if (typeof o.stopReason !== "string" || !STOP_REASONS.includes(o.stopReason as StopReason)) {
    throw new Error(
      `${where}.stopReason must be one of ${STOP_REASONS.join(", ")}, got ${describe(o.stopReason)}`,
    );
  }
  const endedAt = checkTime(`${where}.endedAt`, o.endedAt);
  // Missing usage (or a missing field of it) is 0; a present field must be a count.
  const rawUsage = o.usage === undefined ? {} : o.usage;
  if (typeof rawUsage !== "object" || rawUsage === null || Array.isArray(rawUsage)) {
    throw new Error(`${where}.usage must be an object, got ${describe(rawUsage)}`);
  }
  const usage = {} as TokenUsage;
  for (const field of USAGE_FIELDS) {
    const value = (rawUsage as Record<string, unknown>)[field] ?? 0;
    if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
      throw new Error(
        `${where}.usage.${field} must be a non-negative number of tokens, got ${describe(value)}`,
      );
    }
    // Stored figures stay safe integers, or the parser would drop the outcome.
    usage[field] = Math.min(Number.MAX_SAFE_INTEGER, Math.ceil(value));
  }
  for (const flag of ["injected", "restartCaused"] as const) {
    if (typeof o[flag] !== "boolean") {
      throw new Error(`${where}.${flag} must be a boolean, got ${describe(o[flag])}`);
    }
  }
  if (o.hostRetried !== undefined && typeof o.hostRetried !== "boolean") {
    throw new Error(`${where}.hostRetried must be a boolean, got ${describe(o.hostRetried)}`);
  }
  if (o.model !== undefined && typeof o.model !== "string") {
    throw new Error(`${where}.model must be a string, got ${describe(o.model)}`);
  }
  const cost = o.costUsd;
  if (
    cost !== undefined &&
    cost !== null &&
    !(typeof cost === "number" && Number.isFinite(cost) && cost >= 0)
  ) {
    throw new Error(
      `${where}.costUsd must be a finite number of USD >= 0 or null (unpriced), got ${describe(cost)}`,
    );
  }
  return {
    turnId: o.turnId,
    stopReason: o.stopReason as StopReason,
    endedAt,
    usage,
    injected: o.injected as boolean,
    restartCaused: o.restartCaused as boolean,
    ...(o.hostRetried === true ? { hostRetried: true } : {}),
    ...(typeof o.model === "string" && o.model !== "" ? { model: o.model } : {}),
    ...(cost === undefined ? {} : { costUsd: cost as number | null }),
  };
}

/**
 * A real user turn: the only event that ends an episode. It also lifts the
 * user-abort block and a park after a provider error, disarms a pending
 * restart kick (a person is driving now: there is no automatic turn for the
 * kick to stand in for), forgets the previous turn's outcome (so an idle that
 * arrives before this turn reports its own outcome cannot nudge on a stale
 * one), and remembers the list's fingerprint: the first nudge of the next
 * episode needs the list to have moved since (the user may have redirected
 * the agent). A compaction or its summary is never a real user turn.
 */
export function onRealUserTurn(
  state: ContinuationState,
  now: number,
  listFingerprint: string | null = null,
): ContinuationState {
  checkTime("onRealUserTurn: now", now);
  if (listFingerprint !== null && typeof listFingerprint !== "string") {
    throw new Error(
      `onRealUserTurn: listFingerprint must be a string or null, got ${describe(listFingerprint)}`,
    );
  }
  return {
    ...state,
    episode: null,
    lastOutcome: null,
    userAbortBlocked: false,
    restartKickArmed: false,
    parked: null,
    lastUserTurnAt: now,
    userTurnFingerprint: listFingerprint,
    // The user is back: the budgets start afresh, so a state that could not be
    // trusted no longer matters.
    untrusted: false,
    // A halted verification ends with its episode; the last result stays on show.
    ...(state.verify == null
      ? {}
      : { verify: { last: state.verify.last, nudged: null, halted: false } }),
  };
}

/**
 * A turn our own nudge started. It resets nothing: were an injected turn to
 * reset the episode, the budgets would never count down. Kept as a named
 * transition so callers say what happened instead of skipping the call.
 */
export function onInjectedTurnStart(state: ContinuationState): ContinuationState {
  return state;
}

/**
 * Records how a turn ended. A user abort blocks every nudge until the next
 * real user turn; an abort a restart caused does not (the user did not ask
 * for it). When `tokenMode` is given and an episode is open, the turn's spend
 * is folded in now, so turns that end without a decision after them (tool-use
 * steps inside one run) are still charged; `decide` folds the latest outcome
 * itself, and never twice.
 */
export function onTurnOutcome(
  state: ContinuationState,
  outcome: TurnOutcome,
  tokenMode?: TokenMode,
): ContinuationState {
  const recorded = checkOutcome(outcome);
  const next: ContinuationState = { ...state, lastOutcome: recorded };
  if (recorded.stopReason === "aborted" && !recorded.restartCaused) next.userAbortBlocked = true;
  if (tokenMode !== undefined) next.episode = foldSpend(state.episode, recorded, tokenMode);
  // A turn that ended cleanly ends a run of provider errors: later ones get their retry again.
  const episode = next.episode;
  if (
    episode != null &&
    (episode.errorRetries ?? 0) > 0 &&
    CLEAN_ENDINGS.has(recorded.stopReason)
  ) {
    next.episode = { ...episode, errorRetries: 0 };
  }
  return next;
}

/** Arms the one-shot suppressor: the post-restart kick owns the next decision that could nudge. */
export function armRestartKick(state: ContinuationState): ContinuationState {
  return { ...state, restartKickArmed: true };
}

/** The user's explicit stop (true) or resume (false); durable until changed. */
export function setStopped(state: ContinuationState, stopped: boolean): ContinuationState {
  if (typeof stopped !== "boolean") {
    throw new Error(`setStopped: stopped must be a boolean, got ${describe(stopped)}`);
  }
  return { ...state, stopped };
}

/**
 * A nudge could not be delivered. The budget slot it took stays spent (the
 * safe direction), the consecutive-failure count drives the cooldown, and the
 * outcome it answered is open again so a later retry may answer it.
 */
export function onDeliveryFailed(state: ContinuationState, now: number): ContinuationState {
  checkTime("onDeliveryFailed: now", now);
  const episode = state.episode;
  if (episode == null) return state;
  return {
    ...state,
    episode: {
      ...episode,
      failures: Math.min(Number.MAX_SAFE_INTEGER, episode.failures + 1),
      lastFailureAt: now,
      answeredTurnId: null,
    },
  };
}

/** A nudge reached the model: the failure streak is over. */
export function onDeliverySucceeded(state: ContinuationState): ContinuationState {
  const episode = state.episode;
  if (episode == null || episode.failures === 0) return state;
  return { ...state, episode: { ...episode, failures: 0 } };
}

/** Queues a message for the model's next turn; past `MAX_REMINDERS` the oldest go first. */
export function pushReminder(state: ContinuationState, reminder: Reminder): ContinuationState {
  if (typeof reminder !== "object" || reminder === null) {
    throw new Error(`pushReminder: reminder must be an object, got ${describe(reminder)}`);
  }
  if (!REMINDER_KINDS.includes(reminder.kind)) {
    throw new Error(
      `pushReminder: reminder.kind must be one of ${REMINDER_KINDS.join(", ")}, got ${describe(reminder.kind)}`,
    );
  }
  if (typeof reminder.text !== "string" || reminder.text.trim() === "") {
    throw new Error(
      `pushReminder: reminder.text must be a non-empty string, got ${describe(reminder.text)}`,
    );
  }
  const at = checkTime("pushReminder: reminder.at", reminder.at);
  const queued: Reminder = { kind: reminder.kind, text: reminder.text, at };
  return { ...state, reminders: [...state.reminders, queued].slice(-MAX_REMINDERS) };
}

/** Takes every queued reminder, oldest first, and leaves the queue empty. */
export function drainReminders(state: ContinuationState): {
  state: ContinuationState;
  reminders: Reminder[];
} {
  return { state: { ...state, reminders: [] }, reminders: [...state.reminders] };
}
