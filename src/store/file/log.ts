import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  renameSync,
} from "node:fs";
import type { DecisionLogEntry, SkipReason } from "../../core/types.js";
import {
  type DirSyncer,
  removeIfPresent,
  SYNC_EACH_TIME,
  syncDirsOf,
  tempPathFor,
  writeAll,
  writeDurably,
} from "./atomic.js";
import { readFileNoFollow } from "./documents.js";
import { O_NOFOLLOW, symlinkRefusal } from "./paths.js";
import { preserveCopy } from "./preserve.js";

/**
 * The decision log of a scope: JSON Lines, newest last. Appends are cheap
 * (one write + fsync); once the file holds half a limit more than it should,
 * it is rotated: the file becomes the previous generation (`<log>.1`, one
 * kept) and a fresh one holds the newest `limit` entries. Readers never return
 * more than `limit`, and skip any line they cannot trust (a line torn by a
 * crash, a hand edit). A log the store cannot read (over 64 MB, not a regular
 * file) is set aside as a preserved copy and a fresh one started.
 */

const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | O_NOFOLLOW;

/** A log bigger than this is not one this store wrote; it reads as empty. */
export const MAX_LOG_BYTES = 64 * 1024 * 1024;

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
  /** Non-blank lines in the file, trusted or not. */
  lines: number;
  endsWithNewline: boolean;
  /** The file is too big or not a regular file: it is set aside and a fresh log started. */
  unusable: boolean;
  /** What the file held (null when missing or unusable), for undoing a failed transaction. */
  bytes: Buffer | null;
}

const NEWLINE = 0x0a;

/** Whether `bytes[start, end)` holds anything but ASCII whitespace. */
function hasContent(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = bytes[i] as number;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return true;
  }
  return false;
}

/**
 * Reads the log's bytes and counts its lines without parsing them: an append
 * only needs the count (to know when to trim) and whether the last line is
 * closed. Entries are parsed only by those who read them.
 */
function readLogFile(path: string): LogFile {
  const bytes = readFileNoFollow(path, MAX_LOG_BYTES);
  if (bytes === null || bytes === "unusable") {
    return { lines: 0, endsWithNewline: true, unusable: bytes !== null, bytes: null };
  }
  let lines = 0;
  for (let start = 0; start < bytes.length; ) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline;
    if (hasContent(bytes, start, end)) lines++;
    start = end + 1;
  }
  const endsWithNewline = bytes.length === 0 || bytes[bytes.length - 1] === NEWLINE;
  return { lines, endsWithNewline, unusable: false, bytes };
}

/** The trusted entries of a log's bytes, oldest first: torn or hand-broken lines are skipped. */
function parseLogLines(bytes: Buffer | null): DecisionLogEntry[] {
  if (bytes === null) return [];
  const entries: DecisionLogEntry[] = [];
  for (const line of bytes.toString("utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      const entry = parseLogEntry(JSON.parse(line));
      if (entry) entries.push(entry);
    } catch {
      // Skipped: not an entry this store wrote.
    }
  }
  return entries;
}

/** Whether the log at `path` is one the store cannot read (too big, not a file). */
export function logUnreadable(path: string): boolean {
  return readLogFile(path).unusable;
}

/** A log's bytes as the store reads them: null when missing, "unusable" when too big or not a file. */
export function readLogBytes(path: string): Buffer | "unusable" | null {
  return readFileNoFollow(path, MAX_LOG_BYTES);
}

/** The previous generation of a log, kept when the log is trimmed. */
export function previousGeneration(path: string): string {
  return `${path}.1`;
}

/** The newest `limit` trusted entries, oldest first. */
export function readLogEntries(path: string, limit: number): DecisionLogEntry[] {
  if (limit <= 0) return [];
  return parseLogLines(readLogFile(path).bytes).slice(-limit);
}

function toLines(entries: readonly DecisionLogEntry[]): string {
  return entries.map((e) => `${JSON.stringify(e)}\n`).join("");
}

/**
 * An append prepared (caller holds the scope's lock) but not yet visible:
 * `commit` makes it so, `undo` takes a committed append back, `dispose`
 * releases what preparing took. Preparing does everything that can be refused
 * (a symlink or a folder at the log's name, a read-only folder) before any
 * document of the transaction changes.
 */
export interface PreparedLogAppend {
  commit(): void;
  undo(): void;
  dispose(): void;
}

/**
 * Prepares appending entries to a log. Three ways: a plain append (one write
 * and fsync); once the file holds half a limit more than it should, a rotation
 * (the current file becomes the previous generation, and a fresh file holds the
 * newest `limit` entries); and for a log the store cannot read, setting it
 * aside as a preserved copy and starting afresh.
 */
export function prepareLogAppend(
  path: string,
  entries: readonly DecisionLogEntry[],
  limit: number,
  tag: string,
  dirs: DirSyncer = SYNC_EACH_TIME,
): PreparedLogAppend | null {
  if (entries.length === 0) return null;
  const current = readLogFile(path);
  if (current.unusable || current.lines + entries.length > compactionThreshold(limit)) {
    const kept = current.unusable
      ? [...entries]
      : [...parseLogLines(current.bytes), ...entries].slice(-limit);
    const temp = tempPathFor(path, tag);
    writeDurably(temp, Buffer.from(toLines(kept)));
    if (current.unusable) preserveCopy(path);
    let committed = false;
    return {
      commit() {
        if (!current.unusable) renameSync(path, previousGeneration(path));
        renameSync(temp, path);
        committed = true;
        syncDirsOf([path], dirs);
      },
      undo() {
        if (!committed) return;
        if (current.bytes !== null) {
          writeDurably(temp, current.bytes);
          renameSync(temp, path);
        }
      },
      dispose() {
        removeIfPresent(temp);
      },
    };
  }
  let fd: number;
  try {
    fd = openSync(path, APPEND_FLAGS, 0o666);
  } catch (error) {
    throw symlinkRefusal(path, error);
  }
  const size = fstatSync(fd).size;
  let committed = false;
  return {
    commit() {
      // A line torn by a crash is closed off so the next entry starts clean.
      writeAll(fd, Buffer.from((current.endsWithNewline ? "" : "\n") + toLines(entries)));
      committed = true;
      fsyncSync(fd);
    },
    undo() {
      if (!committed) return;
      ftruncateSync(fd, size);
      fsyncSync(fd);
    },
    dispose() {
      closeSync(fd);
    },
  };
}

/** Appends entries at once (caller holds the scope's lock). */
export function appendLogEntries(
  path: string,
  entries: readonly DecisionLogEntry[],
  limit: number,
  tag: string,
  dirs: DirSyncer = SYNC_EACH_TIME,
): void {
  const prepared = prepareLogAppend(path, entries, limit, tag, dirs);
  if (prepared === null) return;
  try {
    prepared.commit();
  } catch (error) {
    prepared.undo();
    throw error;
  } finally {
    prepared.dispose();
  }
}
