import { closeSync, constants, lstatSync, openSync, readSync, unlinkSync } from "node:fs";
import { writeAll } from "./atomic.js";
import { O_NOFOLLOW } from "./paths.js";

/**
 * Turn order for a scope's lock. A process that cannot take the lock
 * announces itself in `<lock>.wait`: the file names the longest-waiting
 * process (its arrival time and tag) and is rewritten by every waiter each
 * time it polls, so it stays fresh while anyone waits. While a fresh entry
 * names someone who arrived earlier, nobody else takes the lock, and a holder
 * gives its kept lease up at its next transaction: waiters are served roughly
 * in arrival order, and none starves behind a process looping transactions.
 * An entry left by a process that died goes stale within `FRESH_MS`.
 */

/** An entry not rewritten for this long names nobody still waiting. */
export const FRESH_MS = 50;

const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | O_NOFOLLOW;
const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);

export function waitPath(lockPath: string): string {
  return `${lockPath}.wait`;
}

interface Head {
  arrival: number;
  tag: string;
}

/** The longest-waiting process named by a fresh entry, or null. */
function freshHead(lockPath: string): Head | null {
  const path = waitPath(lockPath);
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined || !stat.isFile() || Date.now() - stat.mtimeMs > FRESH_MS) return null;
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(128);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const match = /^(\d{1,16}) ([\w-]{1,64})$/.exec(buffer.subarray(0, n).toString("utf8"));
    return match ? { arrival: Number(match[1]), tag: match[2]! } : null;
  } finally {
    closeSync(fd);
  }
}

/** True when someone else, waiting since before `arrival`, is owed the lock first. */
export function someoneAhead(lockPath: string, tag: string, arrival: number): boolean {
  const head = freshHead(lockPath);
  return head !== null && head.tag !== tag && head.arrival <= arrival;
}

/**
 * Announces a waiter: it becomes the head when the entry is stale, names
 * itself, or names someone who arrived later. Returns whether it is the head.
 */
export function announceWaiting(lockPath: string, tag: string, arrival: number): boolean {
  const head = freshHead(lockPath);
  if (head !== null && head.tag !== tag && head.arrival <= arrival) return false;
  try {
    const fd = openSync(waitPath(lockPath), WRITE_FLAGS, 0o644);
    try {
      writeAll(fd, Buffer.from(`${arrival} ${tag}`));
    } finally {
      closeSync(fd);
    }
  } catch {
    // Only a hint: without it the lock is still exclusive, just not ordered.
  }
  return true;
}

/** The head took the lock: clears the entry so the next waiter can name itself at once. */
export function leaveQueue(lockPath: string, tag: string): void {
  const head = freshHead(lockPath);
  if (head?.tag !== tag) return;
  try {
    unlinkSync(waitPath(lockPath));
  } catch {
    // Gone already.
  }
}
