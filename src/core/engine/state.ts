import { sha256Hex } from "../hash/sha256.js";
import type {
  Allowance,
  CheckResult,
  CheckStatus,
  ContinuationState,
  Episode,
  NotifiedMemory,
  ParkReason,
  PresetName,
  Reminder,
  StopReason,
  TokenUsage,
  TurnOutcome,
  VerifyMemory,
} from "../types.js";
import { PRESETS } from "./presets.js";

const NUDGE_DIGEST = /^[0-9a-f]{32}$/;

/** What `ContinuationState.nudgeDigest` holds for a nudge's text. */
export function nudgeDigest(text: string): string {
  return sha256Hex(text).slice(0, 32);
}

/** `state` without a nudge's digest (a real user turn began: no prompt to come is ours). */
export function withoutNudgeDigest(state: ContinuationState): ContinuationState {
  if (state.nudgeDigest === undefined) return state;
  const { nudgeDigest: _, ...rest } = state;
  return rest;
}

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
    untrusted: false,
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
 * Every field must be present and well-typed, or the whole episode is dropped
 * (null): a counter that is undefined or NaN would compare false against its
 * ceiling and let the budget be bypassed. `parseContinuationState` then marks
 * the state untrusted, so no fresh episode opens before the user's next turn.
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
  // Newer still, and optional: absent stays absent; present and malformed drops the episode.
  const costUsd = raw.costUsd === undefined ? null : usd(raw.costUsd);
  const unpricedTurns = raw.unpricedTurns === undefined ? null : count(raw.unpricedTurns);
  const model = raw.model === undefined ? null : str(raw.model);
  const raised = raw.raised === undefined ? null : parseAllowance(raw.raised);
  if (
    costUsd === undefined ||
    unpricedTurns === undefined ||
    model === undefined ||
    raised === undefined
  ) {
    return null;
  }
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
    ...(costUsd === null ? {} : { costUsd }),
    ...(unpricedTurns === null ? {} : { unpricedTurns }),
    ...(model === null ? {} : { model }),
    ...(raised === null ? {} : { raised }),
  };
}

/** An amount of money: finite and not negative. */
function usd(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A stored `resume --add` allowance; every field present and in range, or undefined. */
function parseAllowance(raw: unknown): Allowance | undefined {
  if (!isRecord(raw)) return undefined;
  const nudges = count(raw.nudges);
  const tokens = count(raw.tokens);
  const timeMs = count(raw.timeMs);
  const costUsd = usd(raw.costUsd);
  if (nudges === undefined || tokens === undefined || timeMs === undefined) return undefined;
  if (costUsd === undefined) return undefined;
  return { nudges, tokens, timeMs, costUsd };
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

/** A malformed outcome is none (and the state that held it untrusted). */
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
    typeof raw.restartCaused !== "boolean" ||
    (raw.hostRetried !== undefined && typeof raw.hostRetried !== "boolean") ||
    (raw.model !== undefined && typeof raw.model !== "string") ||
    (raw.costUsd !== undefined && raw.costUsd !== null && usd(raw.costUsd) === undefined)
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
    ...(raw.hostRetried === true ? { hostRetried: true } : {}),
    ...(typeof raw.model === "string" ? { model: raw.model } : {}),
    ...(raw.costUsd === null || typeof raw.costUsd === "number"
      ? { costUsd: raw.costUsd as number | null }
      : {}),
  };
}

/** The valid reminders, or undefined when the value or any entry is malformed. */
function parseReminders(raw: unknown): Reminder[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: Reminder[] = [];
  for (const entry of raw) {
    if (!isRecord(entry)) return undefined;
    const kind = str(entry.kind);
    const text = str(entry.text);
    const at = time(entry.at);
    if (kind === undefined || !REMINDER_KINDS.includes(kind) || text === undefined)
      return undefined;
    if (at === undefined) return undefined;
    out.push({ kind: kind as Reminder["kind"], text, at });
  }
  return out.slice(-MAX_REMINDERS);
}

/** A field read as a flag: exactly a boolean, or undefined. */
function flag(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/**
 * Reads persisted continuation state field by field, failing closed. Every
 * field must be present and in range; anything else (a negative, fractional,
 * non-finite or mistyped counter, a missing episode id, a document that is not
 * an object) marks the state `untrusted`, and the engine then skips with
 * `state-unreadable` until the user's next real turn: a budget that cannot be
 * read is never taken for a fresh one. Fields that do read are kept (a `stop`
 * stays a stop). Absent input (no document at all) is a fresh scope's state.
 * Fields newer than the format (`untrusted`, `episode.answeredTurnId`) may be
 * absent.
 */
export function parseContinuationState(raw: unknown): ContinuationState {
  const state = emptyState();
  if (raw === undefined) return state;
  if (!isRecord(raw)) return { ...state, untrusted: true };
  let trusted = true;
  const episode = raw.episode === null ? null : parseEpisode(raw.episode);
  if (episode === null && raw.episode !== null) trusted = false;
  const outcome = raw.lastOutcome === null ? null : parseOutcome(raw.lastOutcome);
  if (outcome === null && raw.lastOutcome !== null) trusted = false;
  const restartKickArmed = flag(raw.restartKickArmed);
  const userAbortBlocked = flag(raw.userAbortBlocked);
  const stopped = flag(raw.stopped);
  const reminders = parseReminders(raw.reminders);
  const lastUserTurnAt = nullable(raw.lastUserTurnAt, time);
  const untrusted = raw.untrusted === undefined ? false : flag(raw.untrusted);
  if (
    restartKickArmed === undefined ||
    userAbortBlocked === undefined ||
    stopped === undefined ||
    reminders === undefined ||
    lastUserTurnAt === undefined ||
    untrusted === undefined
  ) {
    trusted = false;
  }
  state.episode = episode;
  state.lastOutcome = outcome;
  // Suppressors fail closed: anything but an exact `false` counts as set.
  state.restartKickArmed = raw.restartKickArmed === true;
  state.userAbortBlocked = userAbortBlocked !== false;
  state.stopped = stopped !== false;
  state.reminders = reminders ?? [];
  state.lastUserTurnAt = lastUserTurnAt ?? null;
  // Newer fields: absent reads as none; a present value of the wrong type is not trusted.
  const fingerprint =
    raw.userTurnFingerprint === undefined ? null : nullable(raw.userTurnFingerprint, str);
  if (fingerprint === undefined) trusted = false;
  state.userTurnFingerprint = fingerprint ?? null;
  // Fails closed: any present value that is not null parks (an unknown reason reads as a provider error).
  if (raw.parked !== undefined && raw.parked !== null) {
    const known = PARK_REASONS.includes(raw.parked as ParkReason);
    if (!known) trusted = false;
    state.parked = known ? (raw.parked as ParkReason) : "provider-error";
  }
  if (raw.verify !== undefined && raw.verify !== null) {
    const verify = parseVerifyMemory(raw.verify);
    // Unreadable: the halt it may have held is unknown, so the budgets are too.
    if (verify === null) trusted = false;
    else state.verify = verify;
  }
  if (raw.notified !== undefined && raw.notified !== null) {
    state.notified = parseNotified(raw.notified);
  }
  // Shown, never decided on: a bad value is dropped, not distrusted.
  const projectDir = parseProjectDir(raw.projectDir);
  if (projectDir !== undefined) state.projectDir = projectDir;
  if (typeof raw.presetOption === "string" && Object.hasOwn(PRESETS, raw.presetOption)) {
    state.presetOption = raw.presetOption as PresetName;
  }
  if (raw.nudgeDigest !== undefined && raw.nudgeDigest !== null) {
    // Unreadable: the host's echo of a nudge would pass for the user's turn, which resets budgets.
    if (typeof raw.nudgeDigest === "string" && NUDGE_DIGEST.test(raw.nudgeDigest)) {
      state.nudgeDigest = raw.nudgeDigest;
    } else trusted = false;
  }
  state.untrusted = !trusted || untrusted !== false;
  return state;
}

/** Longest project folder kept (a path, not a document). */
export const MAX_PROJECT_DIR_CHARS = 4096;

/** A stored project folder: a non-empty string of sane length with no control characters (it is printed), else absent. */
export function parseProjectDir(raw: unknown): string | undefined {
  return typeof raw === "string" &&
    raw !== "" &&
    raw.length <= MAX_PROJECT_DIR_CHARS &&
    !/\p{Cc}/u.test(raw)
    ? raw
    : undefined;
}

/**
 * The notification memory. It holds no budget, so a malformed one does not
 * make the state untrusted; it reads as the unknown key `*`, which counts
 * every event as sent (a notification is never sent twice, see `core/notify`).
 */
function parseNotified(raw: unknown): NotifiedMemory {
  if (
    isRecord(raw) &&
    typeof raw.key === "string" &&
    Array.isArray(raw.events) &&
    raw.events.every((e) => typeof e === "string")
  ) {
    return {
      key: raw.key,
      events: [...(raw.events as string[])],
      ...(typeof raw.doneList === "string" ? { doneList: raw.doneList } : {}),
    };
  }
  return { key: "*", events: [] };
}

const CHECK_STATUSES: readonly CheckStatus[] = ["passed", "failed", "timed-out", "error"];

/** A stored check result, or null when any field is missing or mistyped. */
export function parseCheckResult(raw: unknown): CheckResult | null {
  if (!isRecord(raw)) return null;
  const command = str(raw.command);
  const status = str(raw.status);
  const exitCode =
    raw.exitCode === null
      ? null
      : Number.isSafeInteger(raw.exitCode)
        ? (raw.exitCode as number)
        : undefined;
  const signal = nullable(raw.signal, str);
  const startedAt = time(raw.startedAt);
  const durationMs = time(raw.durationMs);
  const outputTail = str(raw.outputTail);
  const tree = str(raw.tree);
  if (
    command === undefined ||
    status === undefined ||
    !(CHECK_STATUSES as readonly string[]).includes(status) ||
    exitCode === undefined ||
    signal === undefined ||
    startedAt === undefined ||
    durationMs === undefined ||
    outputTail === undefined ||
    tree === undefined
  ) {
    return null;
  }
  const result: CheckResult = {
    command,
    status: status as CheckStatus,
    exitCode,
    signal,
    startedAt,
    durationMs,
    outputTail,
    tree,
  };
  if (raw.cached === true) result.cached = true;
  return result;
}

function parseVerifyMemory(raw: unknown): VerifyMemory | null {
  if (!isRecord(raw)) return null;
  const last = raw.last === null ? null : parseCheckResult(raw.last);
  if (last === null && raw.last !== null) return null;
  let nudged: VerifyMemory["nudged"] = null;
  if (raw.nudged !== null) {
    if (!isRecord(raw.nudged)) return null;
    const tree = str(raw.nudged.tree);
    const list = str(raw.nudged.list);
    const failure = str(raw.nudged.failure);
    if (tree === undefined || list === undefined || failure === undefined) return null;
    nudged = { tree, list, failure };
  }
  const halted = flag(raw.halted);
  if (halted === undefined) return null;
  return { last, nudged, halted };
}
