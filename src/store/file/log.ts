import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
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
  raised: true,
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
  if (raw.advise === true) entry.advise = true;
  if (typeof raw.costUsd === "number" && Number.isFinite(raw.costUsd) && raw.costUsd >= 0) {
    entry.costUsd = raw.costUsd;
  }
  return entry;
}

export interface LogFile {
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

/** One trusted line of a log: its entry and its sequence number (0 on lines written before numbering). */
export interface NumberedEntry {
  seq: number;
  entry: DecisionLogEntry;
}

function seqOf(raw: unknown): number {
  const seq = (raw as { seq?: unknown }).seq;
  return typeof seq === "number" && Number.isSafeInteger(seq) && seq > 0 ? seq : 0;
}

/** One line as a numbered entry, or null when it cannot be trusted. */
function parseLine(line: string): NumberedEntry | null {
  if (line.trim() === "") return null;
  try {
    const raw: unknown = JSON.parse(line);
    const entry = parseLogEntry(raw);
    return entry === null ? null : { seq: seqOf(raw), entry };
  } catch {
    // Not an entry this store wrote.
    return null;
  }
}

/** The trusted entries of a log's bytes, oldest first: torn or hand-broken lines are skipped. */
function parseLogLines(bytes: Buffer | null): NumberedEntry[] {
  if (bytes === null) return [];
  const entries: NumberedEntry[] = [];
  for (const line of bytes.toString("utf8").split("\n")) {
    const parsed = parseLine(line);
    if (parsed !== null) entries.push(parsed);
  }
  return entries;
}

/**
 * The sequence number of the last trusted line (0 for none): parsed from the
 * end, so an append reads one line, not the whole log.
 */
function lastSeqIn(bytes: Buffer | null): number {
  if (bytes === null) return 0;
  let end = bytes.length;
  while (end > 0) {
    const start = bytes.lastIndexOf(NEWLINE, end - 1) + 1;
    const parsed = hasContent(bytes, start, end)
      ? parseLine(bytes.subarray(start, end).toString("utf8"))
      : null;
    if (parsed !== null) return parsed.seq;
    end = start - 1;
  }
  return 0;
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

/**
 * The newest `limit` trusted entries, oldest first. `committed` are entries a
 * committed transaction numbered (see `LogJournal`): those the file does not
 * hold yet (a crash came between the state's rename and the append) are read
 * as logged, since their decision is.
 */
export function readLogEntries(
  path: string,
  limit: number,
  committed: readonly NumberedEntry[] = [],
): DecisionLogEntry[] {
  if (limit <= 0) return [];
  const { bytes } = readLogFile(path);
  const logged = parseLogLines(bytes).map((line) => line.entry);
  const lastSeq = lastSeqIn(bytes);
  const missing = committed.filter((line) => line.seq > lastSeq).map((line) => line.entry);
  return [...logged, ...missing].slice(-limit);
}

function toLines(entries: readonly NumberedEntry[]): string {
  return entries.map(({ seq, entry }) => `${JSON.stringify({ seq, ...entry })}\n`).join("");
}

/** A log as an append found it: what it holds and the number its next entry follows. */
export interface LogTail {
  file: LogFile;
  /** The sequence number of the last trusted line (0 when none). */
  lastSeq: number;
}

/** Reads what an append needs to know of a log (caller holds the scope's lock). */
export function readLogTail(path: string): LogTail {
  const file = readLogFile(path);
  return { file, lastSeq: lastSeqIn(file.bytes) };
}

/** Numbers `entries` after `after`. */
export function numberEntries(
  entries: readonly DecisionLogEntry[],
  after: number,
): NumberedEntry[] {
  return entries.map((entry, i) => ({ seq: after + i + 1, entry }));
}

/**
 * An append prepared (caller holds the scope's lock) but not yet visible:
 * `commit` makes it so, `undo` takes a committed append back, `dispose`
 * releases what preparing took. Preparing does everything that can be refused
 * (a symlink or a folder at the log's name, a read-only folder) before any
 * document of the transaction changes.
 */
export interface PreparedLogAppend {
  /**
   * Whether `commit` flushes the log to disk (a rotation, or an append the state's journal does
   * not keep): then the documents' folders are flushed with it, never after the answer.
   */
  readonly flushes: boolean;
  commit(): void;
  undo(): void;
  dispose(): void;
}

/**
 * Called after each flush of the log at `path` to disk. Only the tests set
 * it, to stand for a machine that lost every append since; it stays empty otherwise.
 */
export const logFlushProbe: { flushed: ((path: string) => void) | null } = { flushed: null };

/**
 * Prepares appending numbered entries to a log whose tail was read under the
 * same lock. Three ways: a plain append (one write, and an fsync when `flush`:
 * entries the state's journal keeps need none, see `LogJournal`); once the file
 * holds half a limit more than it should, a rotation (the current file is
 * kept as the previous generation, and a fresh file holding the newest
 * `limit` entries is renamed over it, so the log's name is never empty); and
 * for a log the store cannot read, setting it aside as a preserved copy and
 * starting afresh. Whatever fails, no temporary is left behind.
 */
export function prepareLogAppend(
  path: string,
  tail: LogTail,
  entries: readonly NumberedEntry[],
  limit: number,
  tag: string,
  dirs: DirSyncer = SYNC_EACH_TIME,
  flush = true,
): PreparedLogAppend | null {
  if (entries.length === 0) return null;
  const current = tail.file;
  if (current.unusable || current.lines + entries.length > compactionThreshold(limit)) {
    return prepareRotation(path, current, entries, limit, tag, dirs);
  }
  let fd: number;
  try {
    fd = openSync(path, APPEND_FLAGS, 0o666);
  } catch (error) {
    throw symlinkRefusal(path, error);
  }
  let size: number;
  try {
    size = fstatSync(fd).size;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  let committed = false;
  return {
    flushes: flush,
    commit() {
      committed = true;
      // A line torn by a crash is closed off so the next entry starts clean.
      writeAll(fd, Buffer.from((current.endsWithNewline ? "" : "\n") + toLines(entries)));
      if (flush) {
        fsyncSync(fd);
        logFlushProbe.flushed?.(path);
      }
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

function prepareRotation(
  path: string,
  current: LogFile,
  entries: readonly NumberedEntry[],
  limit: number,
  tag: string,
  dirs: DirSyncer,
): PreparedLogAppend {
  const kept = current.unusable
    ? [...entries]
    : [...parseLogLines(current.bytes), ...entries].slice(-limit);
  const temp = tempPathFor(path, tag);
  const previous = previousGeneration(path);
  const previousTemp = tempPathFor(previous, tag);
  writeDurably(temp, Buffer.from(toLines(kept)));
  try {
    if (current.unusable) preserveCopy(path);
  } catch (error) {
    removeQuietly(temp);
    throw error;
  }
  let committed = false;
  return {
    flushes: true,
    commit() {
      if (!current.unusable && current.bytes !== null) {
        keepGeneration(path, previousTemp, current.bytes);
        renameSync(previousTemp, previous);
      }
      committed = true;
      renameSync(temp, path);
      syncDirsOf([path], dirs);
      logFlushProbe.flushed?.(path);
    },
    undo() {
      if (!committed || current.bytes === null) return;
      writeDurably(temp, current.bytes);
      renameSync(temp, path);
    },
    dispose() {
      removeQuietly(temp);
      removeQuietly(previousTemp);
    },
  };
}

/** Puts the current log's content at `temp`: a hard link, or a copy where links are refused. */
function keepGeneration(path: string, temp: string, bytes: Buffer): void {
  removeIfPresent(temp);
  try {
    linkSync(path, temp);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw error;
    writeDurably(temp, bytes);
  }
}

function removeQuietly(path: string): void {
  try {
    removeIfPresent(path);
  } catch {
    // Best effort: the scope's orphan sweep removes a leftover temporary later.
  }
}

/** Appends entries at once, numbered after the log's last (caller holds the scope's lock). */
export function appendLogEntries(
  path: string,
  entries: readonly DecisionLogEntry[],
  limit: number,
  tag: string,
  dirs: DirSyncer = SYNC_EACH_TIME,
): void {
  const tail = readLogTail(path);
  const prepared = prepareLogAppend(
    path,
    tail,
    numberEntries(entries, tail.lastSeq),
    limit,
    tag,
    dirs,
  );
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
