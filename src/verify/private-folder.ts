import { lstatSync, rmSync, statSync, writeFileSync } from "node:fs";

/**
 * What the processes hooks start in the background (a project's watcher, the
 * resident hook server) need of the folder they share with hooks, and of
 * their start: a folder only this user can use, so no other user can answer
 * in their place or read what is said; and one start at a time.
 */

/** Why `folder` is not a real folder of this user's, closed to others, or null when it is. */
export function folderProblem(folder: string, self = process.getuid?.()): string | null {
  let s: ReturnType<typeof lstatSync>;
  try {
    s = lstatSync(folder);
  } catch {
    return `${folder} does not exist`;
  }
  if (s.isSymbolicLink()) return `${folder} is a symlink`;
  if (!s.isDirectory()) return `${folder} is not a folder`;
  if (self !== undefined && s.uid !== self) return `${folder} belongs to user ${s.uid}`;
  if ((s.mode & 0o077) !== 0)
    return `${folder} is open to others (mode ${(s.mode & 0o777).toString(8)})`;
  return null;
}

/** A start claim older than this is abandoned (what it started never came up). */
const START_STALE_MS = 10_000;

/**
 * Creates the start claim `path` exclusively: true when this process may
 * start the background process, false when another start is under way. The
 * started process removes the claim once it runs; a claim older than ten
 * seconds is taken over.
 */
export function claimStart(path: string): boolean {
  const body = JSON.stringify({ pid: process.pid, at: Date.now() });
  try {
    writeFileSync(path, body, { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
  }
  const age = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0);
  if (age < START_STALE_MS) return false;
  rmSync(path, { force: true });
  try {
    writeFileSync(path, body, { flag: "wx", mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}
