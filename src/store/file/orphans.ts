import { closeSync, constants, futimesSync, lstatSync, openSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { removeIfPresent } from "./atomic.js";
import { isProcessAlive } from "./lock.js";
import { O_NOFOLLOW } from "./paths.js";

/**
 * The empty file whose modification time says when its folder was last swept.
 * Its leading dot keeps it out of listings and change reports, its `.lock`
 * ending out of snapshots (as the store's other housekeeping files); it is
 * never a scope's lock (those are named after the scope).
 */
export const SWEEP_MARKER = ".orphan-sweep.lock";

/**
 * A folder is swept at most this often. Listing a folder costs about its size
 * (tens of milliseconds for a folder of 10,000 scopes), and every hook process
 * would pay it at its first transaction; orphans are rare (a writer killed
 * mid-write) and only take space, so waiting this long to remove one loses nothing.
 */
export const SWEEP_INTERVAL_MS = 10 * 60_000;

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/**
 * Removes temporaries no live transaction can own from the folders of `files`
 * (the caller holds the lock of the scope `files` belong to), each folder at
 * most once per `SWEEP_INTERVAL_MS` (by its `SWEEP_MARKER`). Of the caller's
 * scope: those of a process that is gone, and any older than `staleMs` (a
 * writer on another host, a reused pid); the caller's own (`ownTag`) stay. Of
 * other scopes, whose locks the caller does not hold: those older than
 * `staleMs`, the age at which their lock is taken over as stale too. Returns
 * how many were removed.
 */
export function removeOrphanedTemps(
  files: readonly string[],
  ownTag: string,
  staleMs: number,
  now = Date.now(),
): number {
  const byDir = new Map<string, string[]>();
  for (const file of files) {
    const dir = dirname(file);
    byDir.set(dir, [...(byDir.get(dir) ?? []), basename(file)]);
  }
  let removed = 0;
  for (const [dir, names] of byDir) {
    const marker = join(dir, SWEEP_MARKER);
    if (sweptRecently(marker, now)) continue;
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch (error) {
      if (errno(error) === "ENOENT" || errno(error) === "ENOTDIR") continue;
      throw error;
    }
    markSwept(marker, now);
    for (const entry of entries) {
      const match = TEMP_TAIL.exec(entry);
      if (match === null) continue;
      const owner = entry.slice(0, match.index);
      const mine = names.includes(owner);
      // Of other scopes, only the documents' and logs' temporaries (what a transaction writes).
      if (!mine && !owner.endsWith(".json") && !owner.endsWith(".log.jsonl")) continue;
      if (mine && entry.slice(owner.length + 1, -4) === ownTag) continue;
      const path = join(dir, entry);
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (stat === undefined || !stat.isFile()) continue;
      const stale = now - stat.mtimeMs > staleMs;
      const dead = mine && !isProcessAlive(Number(match[1]));
      if ((dead || stale) && removeIfPresent(path)) removed++;
    }
  }
  return removed;
}

/** The end of a temporary's name: `.<pid>-<8 hex>.tmp` after the file it is written for. */
const TEMP_TAIL = /\.(\d{1,10})-[0-9a-f]{8}\.tmp$/;

/** Whether the marker says the folder was swept less than `SWEEP_INTERVAL_MS` ago (a future time does not count). */
function sweptRecently(marker: string, now: number): boolean {
  const stat = lstatSync(marker, { throwIfNoEntry: false });
  if (stat === undefined || !stat.isFile()) return false;
  const age = now - stat.mtimeMs;
  return age >= 0 && age < SWEEP_INTERVAL_MS;
}

/** Sets the marker's time to `now`, creating it (never through a symlink); best effort. */
function markSwept(marker: string, now: number): void {
  try {
    const fd = openSync(
      marker,
      constants.O_WRONLY | constants.O_CREAT | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0),
      0o666,
    );
    try {
      futimesSync(fd, now / 1000, now / 1000);
    } finally {
      closeSync(fd);
    }
  } catch {
    // A marker that cannot be written only means the next transaction sweeps again.
  }
}
