import type { DecisionLogEntry, SkipReason } from "../../core/types.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every action the log knows; a Record so a new action in the type must be added here. */
const ACTIONS: Record<DecisionLogEntry["action"], true> = {
  inject: true,
  skip: true,
  "delivery-failed": true,
  raised: true,
};

function isAction(value: unknown): value is DecisionLogEntry["action"] {
  return typeof value === "string" && Object.hasOwn(ACTIONS, value);
}

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= 0;

const isCountOrNull = (value: unknown): value is number | null => value === null || isCount(value);

const isStringOrNull = (value: unknown): value is string | null =>
  value === null || typeof value === "string";

/**
 * Reads one stored decision-log entry, or null when it cannot be trusted (a
 * hand edit or a foreign writer): the log is for reading, so a bad entry is
 * dropped instead of failing the whole read.
 */
export function parseLogEntry(raw: unknown): DecisionLogEntry | null {
  if (!isRecord(raw)) return null;
  const { at, action, reason, episodeId, trigger, nudgeChars, nudgeTokens } = raw;
  if (!isCount(at) || !isAction(action)) return null;
  if (action === "skip" ? typeof reason !== "string" || reason === "" : !isStringOrNull(reason)) {
    return null;
  }
  if (!isStringOrNull(episodeId) || typeof trigger !== "string") return null;
  if (!isCountOrNull(nudgeChars) || !isCountOrNull(nudgeTokens)) return null;
  const counts = [raw.autoTurns, raw.tokens, raw.stagnation, raw.actionable, raw.blocked];
  if (!counts.every(isCount)) return null;
  const entry: DecisionLogEntry = {
    at,
    action,
    reason: reason as SkipReason | null,
    episodeId,
    autoTurns: raw.autoTurns as number,
    tokens: raw.tokens as number,
    stagnation: raw.stagnation as number,
    actionable: raw.actionable as number,
    blocked: raw.blocked as number,
    nudgeChars,
    nudgeTokens,
    trigger,
  };
  if (typeof raw.delivered === "boolean") entry.delivered = raw.delivered;
  if (typeof raw.note === "string") entry.note = raw.note;
  if (raw.advise === true) entry.advise = true;
  if (typeof raw.costUsd === "number" && Number.isFinite(raw.costUsd) && raw.costUsd >= 0) {
    entry.costUsd = raw.costUsd;
  }
  return entry;
}

/** JSON text to a log entry; unreadable text is dropped like a malformed entry. */
export function parseLogEntryText(text: string): DecisionLogEntry | null {
  try {
    return parseLogEntry(JSON.parse(text));
  } catch {
    return null;
  }
}
