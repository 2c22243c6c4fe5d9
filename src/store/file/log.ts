import { closeSync, constants, fsyncSync, openSync } from "node:fs";
import type { DecisionLogEntry, SkipReason } from "../../core/types.js";
import { type DirSyncer, replaceFiles, SYNC_EACH_TIME, writeAll } from "./atomic.js";
import { readFileNoFollow } from "./documents.js";
import { O_NOFOLLOW, symlinkRefusal } from "./paths.js";

/**
 * The decision log of a scope: JSON Lines, newest last. Appends are cheap
 * (one write + fsync); once the file holds half a limit more than it should,
 * it is rewritten atomically with only the newest `limit` entries. Readers
 * never return more than `limit`, and skip any line they cannot trust (a line
 * torn by a crash, a hand edit).
 */

const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | O_NOFOLLOW;

/** A log bigger than this is not one this store wrote; it reads as empty. */
const MAX_LOG_BYTES = 64 * 1024 * 1024;

/** Lines a log may hold before it is trimmed back to `limit`. */
export function compactionThreshold(limit: number): number {
  return limit + Math.max(1, Math.ceil(limit / 2));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const ACTIONS: Record<DecisionLogEntry["action"], true> = {
  inject: true,
  skip: true,
  "delivery-failed": true,
};

const NUMBER_FIELDS = ["at", "autoTurns", "tokens", "stagnation", "actionable", "blocked"] as const;

/** One stored entry, or null when the line cannot be trusted. */
export function parseLogEntry(raw: unknown): DecisionLogEntry | null {
  if (!isRecord(raw)) return null;
  if (typeof raw.action !== "string" || !Object.hasOwn(ACTIONS, raw.action)) return null;
  if (!(raw.reason === null || typeof raw.reason === "string")) return null;
  if (!(raw.episodeId === null || typeof raw.episodeId === "string")) return null;
  if (typeof raw.trigger !== "string") return null;
  for (const field of NUMBER_FIELDS) {
    if (typeof raw[field] !== "number" || !Number.isFinite(raw[field])) return null;
  }
  for (const field of ["nudgeChars", "nudgeTokens"] as const) {
    const v = raw[field];
    if (!(v === null || (typeof v === "number" && Number.isFinite(v)))) return null;
  }
  const entry: DecisionLogEntry = {
    at: raw.at as number,
    action: raw.action as DecisionLogEntry["action"],
    reason: raw.reason as SkipReason | null,
    episodeId: raw.episodeId,
    autoTurns: raw.autoTurns as number,
    tokens: raw.tokens as number,
    stagnation: raw.stagnation as number,
    actionable: raw.actionable as number,
    blocked: raw.blocked as number,
    nudgeChars: raw.nudgeChars as number | null,
    nudgeTokens: raw.nudgeTokens as number | null,
    trigger: raw.trigger,
  };
  if (typeof raw.delivered === "boolean") entry.delivered = raw.delivered;
  if (typeof raw.note === "string") entry.note = raw.note;
  return entry;
}

interface LogFile {
  entries: DecisionLogEntry[];
  /** Lines in the file, trusted or not. */
  lines: number;
  endsWithNewline: boolean;
}

function readLogFile(path: string): LogFile {
  const bytes = readFileNoFollow(path, MAX_LOG_BYTES);
  if (bytes === null || bytes === "unusable")
    return { entries: [], lines: 0, endsWithNewline: true };
  const text = bytes.toString("utf8");
  const entries: DecisionLogEntry[] = [];
  let lines = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    lines++;
    try {
      const entry = parseLogEntry(JSON.parse(line));
      if (entry) entries.push(entry);
    } catch {
      // A torn or hand-broken line is skipped.
    }
  }
  return { entries, lines, endsWithNewline: text.length === 0 || text.endsWith("\n") };
}

/** The newest `limit` trusted entries, oldest first. */
export function readLogEntries(path: string, limit: number): DecisionLogEntry[] {
  if (limit <= 0) return [];
  return readLogFile(path).entries.slice(-limit);
}

function toLines(entries: readonly DecisionLogEntry[]): string {
  return entries.map((e) => `${JSON.stringify(e)}\n`).join("");
}

/** Appends entries (caller holds the scope's lock), trimming the file when it has grown too long. */
export function appendLogEntries(
  path: string,
  entries: readonly DecisionLogEntry[],
  limit: number,
  tag: string,
  dirs: DirSyncer = SYNC_EACH_TIME,
): void {
  if (entries.length === 0) return;
  const current = readLogFile(path);
  if (current.lines + entries.length > compactionThreshold(limit)) {
    const kept = [...current.entries, ...entries].slice(-limit);
    const bytes = Buffer.from(toLines(kept));
    replaceFiles([{ path, bytes, keepAside: false }], tag, () => {}, dirs);
    return;
  }
  let fd: number;
  try {
    fd = openSync(path, APPEND_FLAGS, 0o666);
  } catch (error) {
    throw symlinkRefusal(path, error);
  }
  try {
    // A line torn by a crash is closed off so the next entry starts clean.
    writeAll(fd, Buffer.from((current.endsWithNewline ? "" : "\n") + toLines(entries)));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
