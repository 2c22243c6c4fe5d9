import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/**
 * Reads a file whose path a host handed us (a transcript, a session file, a
 * rollout) without trusting what is there. Only a regular file is read: a
 * device reports size 0 and would be read without end, and opening a FIFO
 * for reading waits for a writer that may never come (the open is
 * non-blocking, so it returns at once and the type check turns it away).
 * Never more than `maxBytes` are read, even from a file that grows while it
 * is read.
 *
 * The reads are synchronous: a hook process reads its transcript once, and
 * this is the only file it would read asynchronously, which would start
 * libuv's thread pool (four threads) and pay a round trip through it for each
 * of open, stat, read and close. The cap bounds how long a reader waits.
 */

export type BoundedRead =
  | { status: "read"; bytes: Buffer; size: number; truncated: boolean }
  /** No such file (or a path through something that is not a folder). */
  | { status: "missing" }
  /** A folder, device, FIFO or socket: nothing was read from it. */
  | { status: "not-regular" }
  /** `whole` mode only: the file is larger than the cap; nothing was read. */
  | { status: "too-large"; size: number };

export interface BoundedReadOptions {
  maxBytes: number;
  /**
   * `whole`: the entire file, or `too-large` when it is over the cap.
   * `tail`: the last `maxBytes` bytes (`truncated` says whether that is all of it).
   */
  mode: "whole" | "tail";
}

// Windows has no O_NONBLOCK; opening a FIFO there does not block either.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export async function readRegularFile(
  path: string,
  options: BoundedReadOptions,
): Promise<BoundedRead> {
  const maxBytes = options.maxBytes;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new Error(`readRegularFile: maxBytes must be a whole number >= 0, got ${maxBytes}`);
  }
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { status: "missing" };
    // Opening a folder for reading fails on some systems instead of succeeding.
    if (code === "EISDIR") return { status: "not-regular" };
    throw error;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { status: "not-regular" };
    const size = info.size;
    if (options.mode === "whole" && size > maxBytes) return { status: "too-large", size };
    const start = options.mode === "tail" ? Math.max(0, size - maxBytes) : 0;
    const buffer = Buffer.alloc(Math.min(size - start, maxBytes));
    let read = 0;
    while (read < buffer.length) {
      const bytesRead = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { status: "read", bytes: buffer.subarray(0, read), size, truncated: start > 0 };
  } finally {
    closeSync(fd);
  }
}
