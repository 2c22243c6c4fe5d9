import { lstatSync, readFileSync, realpathSync, type Stats, statSync } from "node:fs";
import { UnsafePathError } from "./paths.js";

/** Set-group-id and sticky bits aside, a folder anyone may write to. */
const WORLD_WRITABLE = 0o002;
const STICKY = 0o1000;

/** A user id with its name where the system knows it: `65534 (nobody)`. */
export function describeUser(uid: number): string {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const [name, , id] = line.split(":");
      if (id === String(uid) && name) return `${uid} (${name})`;
    }
  } catch {
    // No passwd file: the number alone.
  }
  return String(uid);
}

function trusted(uid: number, self: number): boolean {
  return uid === self || uid === 0;
}

/**
 * Refuses a store folder that another user controls, as ssh refuses such
 * keys: the folder (after following a symlink) and the symlink itself must
 * belong to the current user or to root, and the folder must not be writable
 * by every user unless sticky. Otherwise another user could read what the
 * store writes or plant the lists an agent is nudged to work on. A folder that
 * does not exist yet passes (the store creates it, as its own). No-op where
 * the system has no user ids (Windows).
 */
export function assertOwnFolder(path: string, self: number | undefined = process.getuid?.()): void {
  if (self === undefined) return;
  let link: Stats | undefined;
  let target: Stats;
  try {
    link = lstatSync(path);
    target = link.isSymbolicLink() ? statSync(path) : link;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const shown = link.isSymbolicLink() ? `${path} (a symlink to ${realTarget(path)})` : path;
  if (link.isSymbolicLink() && !trusted(link.uid, self)) {
    throw new UnsafePathError(
      `refusing the store folder ${shown}: the symlink belongs to user ${describeUser(link.uid)}, ` +
        `not to user ${describeUser(self)} or root`,
    );
  }
  if (!trusted(target.uid, self)) {
    throw new UnsafePathError(
      `refusing the store folder ${shown}: it belongs to user ${describeUser(target.uid)}, ` +
        `not to user ${describeUser(self)} or root; use a folder of your own (--dir or TODO_CONTINUATION_DIR)`,
    );
  }
  if ((target.mode & WORLD_WRITABLE) !== 0 && (target.mode & STICKY) === 0) {
    throw new UnsafePathError(
      `refusing the store folder ${shown}: every user may write to it ` +
        `(mode ${(target.mode & 0o7777).toString(8)}); chmod o-w it`,
    );
  }
}

function realTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return "a missing folder";
  }
}
