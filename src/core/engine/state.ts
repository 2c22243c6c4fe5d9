import type {
  ContinuationState,
  Episode,
  ParkReason,
  Reminder,
  StopReason,
  TokenUsage,
  TurnOutcome,
} from "../types.js";

export const STOP_REASONS: readonly StopReason[] = [
  "stop",
  "tool_use",
  "length",
  "error",
  "transient_error",
  "aborted",
  "context_overflow",
  "unknown",
];

const PARK_REASONS: readonly ParkReason[] = ["provider-error", "retries-exhausted"];

const REMINDER_KINDS: readonly string[] = ["user-edit", "write-failed", "channel", "custom"];

/** Reminders kept per scope; the oldest go first when more queue up unread. */
export const MAX_REMINDERS = 20;

export function emptyState(): ContinuationState {
  return {
    version: 1,
    episode: null,
    lastOutcome: null,
    restartKickArmed: false,
    userAbortBlocked: false,
    stopped: false,
    reminders: [],
    lastUserTurnAt: null,
    userTurnFingerprint: null,
    parked: null,
  };
}

export function zeroUsage(): TokenUsage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A finite, non-negative safe count, or undefined when the value cannot be trusted. */
function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function time(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function nullable<T>(value: unknown, read: (v: unknown) => T | undefined): T | null | undefined {
  return value === null ? null : read(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * Every field must be present and well-typed, or the whole episode is dropped:
 * a counter that is undefined or NaN would compare false against its ceiling
 * and let the budget be bypassed. A fresh episode then opens at the next nudge.
 */
export function parseEpisode(raw: unknown): Episode | null {
  if (!isRecord(raw)) return null;
  const id = str(raw.id);
  const startedAt = time(raw.startedAt);
  const autoTurns = count(raw.autoTurns);
  const tokens = count(raw.tokens);
  const stagnation = count(raw.stagnation);
  const lastFingerprint = nullable(raw.lastFingerprint, str);
  const minIncomplete = nullable(raw.minIncomplete, count);
  const maxCompleted = nullable(raw.maxCompleted, count);
  const lastCountedTurnId = nullable(raw.lastCountedTurnId, str);
  const failures = count(raw.failures);
  const lastInjectionAt = nullable(raw.lastInjectionAt, time);
  const lastFailureAt = nullable(raw.lastFailureAt, time);
  // Newer than the other fields: absent reads as null (no nudge to guard), but
  // a present value of the wrong type still drops the episode.
  const answeredTurnId =
    raw.answeredTurnId === undefined ? null : nullable(raw.answeredTurnId, str);
  const errorRetries = raw.errorRetries === undefined ? 0 : count(raw.errorRetries);
  if (
    id === undefined ||
    id === "" ||
    startedAt === undefined ||
    autoTurns === undefined ||
    tokens === undefined ||
    stagnation === undefined ||
    lastFingerprint === undefined ||
    minIncomplete === undefined ||
    maxCompleted === undefined ||
    lastCountedTurnId === undefined ||
    failures === undefined ||
    lastInjectionAt === undefined ||
    lastFailureAt === undefined ||
    answeredTurnId === undefined ||
    errorRetries === undefined
  ) {
    return null;
  }
  return {
    id,
    startedAt,
    autoTurns,
    tokens,
    stagnation,
    lastFingerprint,
    minIncomplete,
    maxCompleted,
    lastCountedTurnId,
    failures,
    lastInjectionAt,
    lastFailureAt,
    answeredTurnId,
    errorRetries,
  };
}

export function parseUsage(raw: unknown): TokenUsage | null {
  if (!isRecord(raw)) return null;
  const usage = {
    input: count(raw.input),
    output: count(raw.output),
    cacheRead: count(raw.cacheRead),
    cacheWrite: count(raw.cacheWrite),
    total: count(raw.total),
  };
  for (const value of Object.values(usage)) if (value === undefined) return null;
  return usage as TokenUsage;
}

/** A malformed outcome is none: the idle path then skips as `turn-not-safe`. */
export function parseOutcome(raw: unknown): TurnOutcome | null {
  if (!isRecord(raw)) return null;
  const turnId = str(raw.turnId);
  const stopReason = str(raw.stopReason);
  const endedAt = time(raw.endedAt);
  const usage = parseUsage(raw.usage);
  if (
    turnId === undefined ||
    stopReason === undefined ||
    !(STOP_REASONS as readonly string[]).includes(stopReason) ||
    endedAt === undefined ||
    usage === null ||
    typeof raw.injected !== "boolean" ||
    typeof raw.restartCaused !== "boolean"
  ) {
    return null;
  }
  return {
    turnId,
    stopReason: stopReason as StopReason,
    endedAt,
    usage,
    injected: raw.injected,
    restartCaused: raw.restartCaused,
  };
}

function parseReminders(raw: unknown): Reminder[] {
  if (!Array.isArray(raw)) return [];
  const out: Reminder[] = [];
  for (const entry of raw) {
    if (!isRecord(entry)) continue;
    const kind = str(entry.kind);
    const text = str(entry.text);
    const at = time(entry.at);
    if (kind === undefined || !REMINDER_KINDS.includes(kind) || text === undefined) continue;
    if (at === undefined) continue;
    out.push({ kind: kind as Reminder["kind"], text, at });
  }
  return out.slice(-MAX_REMINDERS);
}

/**
 * Reads persisted continuation state field by field, failing closed: flags
 * count as set only when exactly `true`, a malformed episode or outcome is
 * none. A corrupt state can therefore never allow more nudges than a fresh one
 * (a missing outcome alone makes the idle path skip as `turn-not-safe`).
 */
export function parseContinuationState(raw: unknown): ContinuationState {
  const state = emptyState();
  if (!isRecord(raw)) return state;
  state.episode = parseEpisode(raw.episode);
  state.lastOutcome = parseOutcome(raw.lastOutcome);
  state.restartKickArmed = raw.restartKickArmed === true;
  state.userAbortBlocked = raw.userAbortBlocked === true;
  state.stopped = raw.stopped === true;
  state.reminders = parseReminders(raw.reminders);
  state.lastUserTurnAt = time(raw.lastUserTurnAt) ?? null;
  state.userTurnFingerprint = str(raw.userTurnFingerprint) ?? null;
  // Fails closed: any present value that is not null parks (an unknown reason reads as a provider error).
  if (raw.parked !== undefined && raw.parked !== null) {
    state.parked = PARK_REASONS.includes(raw.parked as ParkReason)
      ? (raw.parked as ParkReason)
      : "provider-error";
  }
  return state;
}
