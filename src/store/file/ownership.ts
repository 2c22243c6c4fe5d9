import { lstatSync, readFileSync, realpathSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, resolve, sep } from "node:path";
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

/** The path with every symlink resolved, from its nearest folder that exists; null: none does. */
function nearestReal(path: string): string | null {
  let current = resolve(path);
  for (;;) {
    try {
      return realpathSync(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      const parent = dirname(current);
      if (parent === current) return null;
      current = parent;
    }
  }
}

/** The home folder with its symlinks resolved; null when it does not exist (no home to check). */
function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

export interface AncestorOptions {
  /** The current user's id; default: the process's (none on Windows: no check). */
  self?: number | undefined;
  /** The user's home folder; default: `os.homedir()`. */
  home?: string;
}

/**
 * Refuses a store whose folders above it another user could use to swap it
 * for a folder of theirs, as ssh checks the folders above `~/.ssh`. Walking
 * up from the store folder's parent (symlinks resolved, from the nearest
 * folder that exists): no folder may be writable by every user unless sticky
 * (`/tmp` is fine), and every folder inside the home folder, up to and
 * including it, must belong to the current user or to root. A folder above
 * the store outside home that another user owns (a shared project, a
 * container's mounted checkout) is accepted: its owner already controls what
 * an agent working there reads, settings and hooks included, so refusing the
 * store would protect nothing. A folder writable by its group is accepted, as
 * for the store folder itself: systems with a private group per user make
 * that the common case. No-op where the system has no user ids (Windows).
 */
export function assertSafeAncestors(storeFolder: string, options: AncestorOptions = {}): void {
  const self = "self" in options ? options.self : process.getuid?.();
  if (self === undefined) return;
  let dir = nearestReal(dirname(resolve(storeFolder)));
  if (dir === null) return;
  const home = realOrNull(options.home ?? homedir());
  for (;;) {
    const info = statSync(dir);
    if ((info.mode & WORLD_WRITABLE) !== 0 && (info.mode & STICKY) === 0) {
      throw new UnsafePathError(
        `refusing the store folder ${storeFolder}: every user may write to ${dir} above it ` +
          `(mode ${(info.mode & 0o7777).toString(8)}), so anyone could put a folder of theirs in ` +
          `its place; chmod o-w ${dir}`,
      );
    }
    if (home !== null && isWithin(dir, home) && !trusted(info.uid, self)) {
      throw new UnsafePathError(
        `refusing the store folder ${storeFolder}: ${dir} above it, in your home folder, belongs ` +
          `to user ${describeUser(info.uid)}, not to user ${describeUser(self)} or root, so that ` +
          "user could put a folder of theirs in its place; use a folder of your own " +
          "(--dir or TODO_CONTINUATION_DIR)",
      );
    }
    const parent = dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}
