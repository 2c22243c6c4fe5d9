import { closeSync, readSync } from "node:fs";
import type { DecisionLogEntry } from "../../core/types.js";
import { openForRead, readRange, useOpenFile } from "./documents.js";
import { MAX_LOG_BYTES, parseLogEntry } from "./log.js";

const NEWLINE = 0x0a;

/** Bytes read from a log's end at first; each retry reads a window twice as wide. */
export const TAIL_WINDOW_BYTES = 16 * 1024;

const SCRATCH = Buffer.allocUnsafe(4 * TAIL_WINDOW_BYTES);

/**
 * The newest `limit` trusted entries of the log at `path`, oldest first,
 * reading only the end of the file: a window of its last bytes, widened (up to
 * the whole file) while it holds fewer than `limit` entries. Lines are only
 * taken after the window's first newline, so a line the window cuts is never
 * parsed. Null when there is no log, "unusable" when the store cannot read it
 * (too big, not a file), as `readLogBytes` says.
 */
export function readLogTail(
  path: string,
  limit: number,
  firstWindow = TAIL_WINDOW_BYTES,
): DecisionLogEntry[] | "unusable" | null {
  const fd = openForRead(path);
  if (fd === null) return null;
  try {
    // Most logs fit the first window: one read from the start then holds the whole file, and
    // its size needs no fstat. Only a read that comes back short but not empty is taken as the
    // whole file: a pipe or a terminal refuses a positioned read, and an empty read, a full
    // window or any error goes the careful way (fstat: a regular file within the cap, read from its end).
    const window = Math.min(firstWindow, SCRATCH.length);
    if (limit > 0) {
      let n = -1;
      try {
        n = readSync(fd, SCRATCH, 0, window, 0);
      } catch {
        // A folder or a device: the careful way below says what it is.
      }
      if (n > 0 && n < window) return newestEntries(SCRATCH.subarray(0, n), limit);
    }
    return useOpenFile(fd, MAX_LOG_BYTES, (open, size) =>
      tailOfOpenFile(open, size, limit, firstWindow),
    );
  } finally {
    closeSync(fd);
  }
}

/** The newest `limit` entries of an open regular file of `size` bytes, read from its end. */
function tailOfOpenFile(
  fd: number,
  size: number,
  limit: number,
  firstWindow: number,
): DecisionLogEntry[] {
  if (limit <= 0) return [];
  for (let window = Math.min(size, firstWindow); ; window = Math.min(size, window * 2)) {
    const start = size - window;
    // Entries are parsed into new objects, so the usual window reuses one buffer (no garbage per log).
    const bytes = readRange(fd, start, window, window <= SCRATCH.length ? SCRATCH : undefined);
    const newline = start === 0 ? -1 : bytes.indexOf(NEWLINE);
    const whole = start === 0 ? bytes : bytes.subarray(newline === -1 ? bytes.length : newline + 1);
    const found = newestEntries(whole, limit);
    if (found.length >= limit || start === 0) return found;
  }
}

/**
 * The newest `limit` trusted entries of a log's bytes, oldest first: lines
 * are taken from the end, so a tail of one parses one line, not the whole log.
 * Lines that cannot be trusted are skipped, as every reader of the log does.
 */
export function newestEntries(bytes: Buffer, limit: number): DecisionLogEntry[] {
  const found: DecisionLogEntry[] = [];
  let end = bytes.length;
  while (found.length < limit && end > 0) {
    const newline = bytes.lastIndexOf(NEWLINE, end - 1);
    const start = newline + 1;
    // Blank lines (the one after the last newline, above all) are skipped without a parse.
    if (hasContent(bytes, start, end)) {
      try {
        const entry = parseLogEntry(JSON.parse(bytes.toString("utf8", start, end)));
        if (entry) found.push(entry);
      } catch {
        // Skipped: torn by a crash, or not an entry this store wrote.
      }
    }
    end = newline === -1 ? 0 : newline;
  }
  return found.reverse();
}

/** Whether `bytes[start, end)` holds anything but blanks (JSON's whitespace). */
function hasContent(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = bytes[i] as number;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a) return true;
  }
  return false;
}
