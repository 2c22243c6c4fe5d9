import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from "node:fs";
import { parseContinuationState } from "../../core/engine/state.js";
import { sha256Hex } from "../../core/hash/sha256.js";
import { parseTodo, parseTodoList } from "../../core/todo/parse.js";
import type { ContinuationState, TodoList } from "../../core/types.js";
import { JOURNAL_FIELD, type LogJournal, parseJournal } from "./journal.js";
import { O_NOFOLLOW, symlinkRefusal } from "./paths.js";

/** Format version written into every document. */
export const DOCUMENT_VERSION = 1;

/** Larger files are not documents this store wrote; they read as empty and are kept aside. */
export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;

const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);

/**
 * Linux: reading without touching the access time. A read right after a
 * write would otherwise dirty the inode, and wait for the journal whenever a
 * commit is under way. Refused (EPERM) for files of another owner.
 */
const O_NOATIME = constants.O_NOATIME ?? 0;

/** Opens a document for reading without following a symlink; null when it does not exist. */
export function openForRead(path: string): number | null {
  try {
    return openSync(path, READ_FLAGS | O_NOATIME);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "EPERM" && O_NOATIME !== 0) {
      try {
        return openSync(path, READ_FLAGS);
      } catch (retryError) {
        if ((retryError as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw symlinkRefusal(path, retryError);
      }
    }
    throw symlinkRefusal(path, error);
  }
}

/** The raw content of one stored document. */
export interface RawDocument {
  /** The parsed JSON object, or undefined when the file is missing, empty or unusable. */
  value: Record<string, unknown> | undefined;
  revision: number;
  /**
   * The file holds something that is not a JSON object (a broken hand edit, a
   * stray file): it reads as empty, and a copy is kept before a write replaces it.
   */
  unusable: boolean;
  /** Something is stored under the document's name (even if empty or unusable). */
  exists: boolean;
  /** The bytes read (null when missing or too big to read): what a failed write restores. */
  bytes: Buffer | null;
}

const MISSING: RawDocument = {
  value: undefined,
  revision: 0,
  unusable: false,
  exists: false,
  bytes: null,
};

/** Reads a whole file without following a symlink; null when it does not exist. */
export function readFileNoFollow(path: string, maxBytes: number): Buffer | "unusable" | null {
  // O_NONBLOCK: a FIFO planted under a document name must not hang the reader.
  return withFileNoFollow(path, maxBytes, (fd, size) => readRange(fd, 0, size));
}

/**
 * Opens `path` without following a symlink and hands `use` the descriptor and
 * size of a regular file of at most `maxBytes`: null when nothing is there,
 * "unusable" when it is too big or not a file, as `readFileNoFollow` answers.
 */
export function withFileNoFollow<T>(
  path: string,
  maxBytes: number,
  use: (fd: number, size: number) => T,
): T | "unusable" | null {
  const fd = openForRead(path);
  if (fd === null) return null;
  try {
    return useOpenFile(fd, maxBytes, use);
  } finally {
    closeSync(fd);
  }
}

/** `withFileNoFollow` on a descriptor already open (the caller closes it). */
export function useOpenFile<T>(
  fd: number,
  maxBytes: number,
  use: (fd: number, size: number) => T,
): T | "unusable" {
  const stat = fstatSync(fd);
  if (!stat.isFile() || stat.size > maxBytes) return "unusable";
  return use(fd, stat.size);
}

/**
 * Up to `length` bytes of the open file `fd` from `position`; fewer when the
 * file ends sooner. With `into` (at least `length` long) the bytes land there
 * instead of a new buffer: for callers that are done with them before the next read.
 */
export function readRange(fd: number, position: number, length: number, into?: Buffer): Buffer {
  const buffer = into ?? Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const n = readSync(fd, buffer, filled, length - filled, position + filled);
    if (n === 0) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads a document, failing closed: nothing in the file can make this throw. */
export function parseDocumentText(bytes: Buffer | "unusable" | null): RawDocument {
  if (bytes === null) return MISSING;
  if (bytes === "unusable") {
    return { value: undefined, revision: 0, unusable: true, exists: true, bytes: null };
  }
  const text = bytes.toString("utf8");
  if (text.trim() === "") return { ...MISSING, exists: true, bytes };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { value: undefined, revision: 0, unusable: true, exists: true, bytes };
  }
  if (!isRecord(value))
    return { value: undefined, revision: 0, unusable: true, exists: true, bytes };
  const { revision } = value;
  return {
    value,
    revision:
      typeof revision === "number" && Number.isSafeInteger(revision) && revision >= 0
        ? revision
        : 0,
    unusable: false,
    exists: true,
    bytes,
  };
}

/** Reused by every quick read: documents are small and reads are synchronous. */
const SCRATCH = Buffer.allocUnsafe(64 * 1024);

/**
 * Reads a file with as few syscalls as possible (open, read, close): a read
 * shorter than asked is taken as the end of the file. `readDocument` confirms
 * with the careful reader whenever the result does not parse, so a short read
 * that was not the end can never make a document look broken. Without
 * `keepBytes` a file that fits one read is handed back as a view of the
 * scratch buffer, valid only until the next read (no copy for a reader that
 * only parses it).
 */
function readFileQuick(
  path: string,
  maxBytes: number,
  keepBytes: boolean,
): Buffer | "unusable" | null {
  const fd = openForRead(path);
  if (fd === null) return null;
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const n = readSync(fd, SCRATCH, 0, SCRATCH.length, total);
      if (n < SCRATCH.length && total === 0 && !keepBytes) return SCRATCH.subarray(0, n);
      if (n > 0) chunks.push(Buffer.from(SCRATCH.subarray(0, n)));
      total += n;
      if (total > maxBytes) return "unusable";
      if (n < SCRATCH.length) break;
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } catch {
    // A folder, a FIFO or a device under a document's name.
    return "unusable";
  } finally {
    closeSync(fd);
  }
}

/**
 * Documents found missing at their last read. Opening a missing file costs a
 * thrown error; for these a cheap existence check comes first. Only a hint:
 * a document that appeared meanwhile is read as usual.
 */
const seenMissing = new Set<string>();

/**
 * Reads one document. `keepBytes: false` is for readers that do not write
 * the document back (a read, a scan): the result then carries no `bytes`,
 * and the file's content is not copied for them.
 */
export function readDocument(path: string, keepBytes = true): RawDocument {
  if (seenMissing.has(path)) {
    if (!existsSync(path)) return MISSING;
    seenMissing.delete(path);
  }
  const bytes = readFileQuick(path, MAX_DOCUMENT_BYTES, keepBytes);
  if (bytes === null) {
    if (seenMissing.size >= 4096) seenMissing.clear();
    seenMissing.add(path);
  }
  const quick = parseDocumentText(bytes);
  if (!quick.unusable) {
    // A view of the scratch buffer must not outlive this call.
    if (!keepBytes && quick.bytes !== null) quick.bytes = null;
    return quick;
  }
  return parseDocumentText(readFileNoFollow(path, MAX_DOCUMENT_BYTES));
}

export function readTodoList(raw: RawDocument): TodoList {
  return parseTodoList(raw.value);
}

/**
 * Whether reading the list lost something the file holds: an entry dropped
 * (a bad status, a missing content), a field of an entry dropped or changed,
 * or the whole file unusable. Such a file is copied before a write replaces it.
 */
export function listLosesData(raw: RawDocument, list: TodoList): boolean {
  if (raw.unusable) return true;
  const todos = raw.value?.todos;
  if (todos === undefined) return false;
  if (!Array.isArray(todos) || todos.length !== list.todos.length) return true;
  return !todos.every((todo, i) => survives(todo, list.todos[i]));
}

/**
 * The last text hashed and its checksum: a hook reads a state before its transaction and again
 * inside it, and then writes what it read when nothing changed, so one hash serves all three.
 */
let lastChecksum: { text: string; checksum: string } | null = null;

/** The checksum a state document carries, over all its other fields. */
function stateChecksum(fields: Record<string, unknown>): string {
  let text: string;
  try {
    text = JSON.stringify(fields);
  } catch {
    // Nested too deep to serialize: not a document the store wrote.
    return "";
  }
  if (lastChecksum?.text === text) return lastChecksum.checksum;
  const checksum = `sha256:${sha256Hex(text)}`;
  lastChecksum = { text, checksum };
  return checksum;
}

/** A state document as read: the state, and whether the file held something not written by the store. */
export interface StoredState {
  state: ContinuationState;
  /** The file is unusable, empty, or its checksum does not match (a copy is kept on the next write). */
  damaged: boolean;
  /** The log entries of the write that made this document (null when none, or damaged). */
  journal: LogJournal | null;
}

/**
 * Reads a state document. Anything the store did not write exactly as it is
 * (a broken or hand-edited file, a checksum that does not match, a value out
 * of range) reads as untrusted: the engine then holds every nudge until the
 * user's next real turn. A missing document is a fresh scope. The stop marker
 * keeps a stop whatever happened to the document.
 */
export function readState(raw: RawDocument, stopMarker = false): StoredState {
  let state: ContinuationState;
  let damaged = false;
  let journal: LogJournal | null = null;
  if (!raw.exists) {
    state = parseContinuationState(undefined);
  } else if (raw.value === undefined) {
    state = parseContinuationState(null);
    damaged = true;
  } else {
    const { checksum, ...fields } = raw.value;
    const { [JOURNAL_FIELD]: journalField, ...stateFields } = fields;
    state = parseContinuationState(stateFields);
    if (typeof checksum !== "string" || checksum !== stateChecksum(fields)) {
      state.untrusted = true;
      damaged = true;
    } else {
      // Only a journal under a good checksum is trusted to add to the log.
      journal = parseJournal(journalField);
    }
  }
  if (stopMarker) state.stopped = true;
  return { state, damaged, journal };
}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Refuses a list a transaction returns if reading it back would lose entries:
 * the caller learns which entry is wrong instead of the store silently
 * dropping it on the next read. Returns the list as it will be stored.
 */
export function checkTodoList(list: unknown): TodoList {
  if (!isRecord(list) || !Array.isArray(list.todos)) {
    throw new TypeError(`transaction returned todos that are not a list: ${describe(list)}`);
  }
  if (!Array.isArray(list.phases) || !list.phases.every((p) => typeof p === "string")) {
    throw new TypeError("transaction returned todos.phases that is not a list of strings");
  }
  if (typeof list.nextId !== "number" || !Number.isSafeInteger(list.nextId) || list.nextId < 1) {
    throw new TypeError(
      `transaction returned todos.nextId ${describe(list.nextId)}, not a positive integer`,
    );
  }
  const normalized = parseTodoList(list);
  if (normalized.todos.length !== list.todos.length) {
    const index = list.todos.findIndex((todo) => parseTodo(todo) === null);
    throw new TypeError(
      `transaction returned an invalid todo at todos[${index}]: ${describe(list.todos[index])}`,
    );
  }
  return normalized;
}

/**
 * Whether everything `given` says survives in `parsed`: each field it sets
 * is there with the same value. Fields the parser adds with their defaults
 * (a field newer than the caller) are fine; anything dropped or changed is not.
 */
function survives(given: unknown, parsed: unknown): boolean {
  if (Array.isArray(given)) {
    return (
      Array.isArray(parsed) &&
      parsed.length === given.length &&
      given.every((item, i) => survives(item, parsed[i]))
    );
  }
  if (isRecord(given)) {
    if (!isRecord(parsed)) return false;
    return Object.keys(given).every((k) => given[k] === undefined || survives(given[k], parsed[k]));
  }
  return Object.is(given, parsed);
}

/**
 * Refuses a state a transaction returns if any field would not survive the
 * fail-closed parser, naming the field: a state that reads back differently
 * from what was decided must never be written. Returns the parsed state,
 * which is what gets written.
 */
export function checkState(state: unknown): ContinuationState {
  if (!isRecord(state)) {
    throw new TypeError(`transaction returned a state that is not an object: ${describe(state)}`);
  }
  const parsed = parseContinuationState(state);
  const fields = parsed as unknown as Record<string, unknown>;
  for (const field of Object.keys(state)) {
    if (state[field] !== undefined && !survives(state[field], fields[field])) {
      throw new TypeError(
        `transaction returned an invalid state.${field}: ${describe(state[field])}`,
      );
    }
  }
  return parsed;
}

/** The revision a write moves a document to; refuses to go past the largest exact integer. */
export function nextRevision(path: string, revision: number): number {
  if (revision >= Number.MAX_SAFE_INTEGER) {
    throw new RangeError(`${path}: revision ${revision} cannot be increased; lower it by hand`);
  }
  return revision + 1;
}

/** A list document: plain, pretty-printed JSON a person can edit by hand. */
export function serializeTodoList(list: TodoList, revision: number): string {
  const doc = {
    version: DOCUMENT_VERSION,
    revision,
    todos: list.todos,
    phases: list.phases,
    nextId: list.nextId,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * A state document: JSON with a checksum over every other field, so no change
 * goes unseen. `journal` holds the log entries of the write (see `LogJournal`).
 */
export function serializeState(
  state: ContinuationState,
  revision: number,
  journal: LogJournal | null = null,
): string {
  const { version: _version, ...fields } = state;
  const doc = {
    version: DOCUMENT_VERSION,
    revision,
    ...fields,
    ...(journal === null ? {} : { [JOURNAL_FIELD]: journal }),
  };
  return `${JSON.stringify({ ...doc, checksum: stateChecksum(doc) }, null, 2)}\n`;
}
