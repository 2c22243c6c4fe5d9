import { constants, lstatSync, mkdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { assertScope } from "../../core/scope/scope.js";
import type { Scope } from "../../core/types.js";
import { assertOwnFolder, assertSafeAncestors } from "./ownership.js";

/** Sub-folder of the todo folder holding continuation state, logs and locks. */
export const STATE_FOLDER = ".state";

/** Opening flags that refuse a symlink as the last path component (0 where the OS lacks it). */
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Every file one scope owns, all inside the todo folder. */
export interface ScopePaths {
  todos: string;
  state: string;
  log: string;
  lock: string;
  /**
   * Present while the user's stop holds: kept apart from the state document,
   * so losing or corrupting that document cannot lift a stop.
   */
  stop: string;
  /** Folders between the todo folder and the files, outermost first. */
  dirs: string[];
}

export class UnsafePathError extends Error {
  override name = "UnsafePathError";
}

/**
 * Joins `relativePath` to `base` and re-checks that the result stays strictly
 * inside `base`. Scope keys are already traversal-safe; this is the second
 * line of defence for anything that reaches a path builder by hand.
 */
export function containedPath(base: string, relativePath: string): string {
  if (isPlainInside(base, relativePath)) return `${base}${sep}${relativePath}`;
  const full = resolve(base, relativePath);
  const rel = relative(base, full);
  if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) {
    throw new UnsafePathError(
      `path ${JSON.stringify(relativePath)} resolves outside ${JSON.stringify(base)}`,
    );
  }
  return full;
}

/** Bases known to be absolute and normalized (what `resolve` returns for them). */
const normalizedBases = new Set<string>();

/**
 * Whether joining is plain concatenation that stays inside `base`: a
 * normalized absolute base (not the root) and a relative path of ordinary
 * names only (no `.`, `..`, empty or absolute part). Scope keys always are;
 * anything else takes the full resolve-and-check path.
 */
function isPlainInside(base: string, relativePath: string): boolean {
  if (sep !== "/" || relativePath.includes("\\")) return false;
  if (!normalizedBases.has(base)) {
    if (base === sep || resolve(base) !== base) return false;
    if (normalizedBases.size >= 64) normalizedBases.clear();
    normalizedBases.add(base);
  }
  for (const part of relativePath.split("/")) {
    if (part === "" || part === "." || part === "..") return false;
  }
  return true;
}

/**
 * Paths of a scope's list (`<todo>/<key>.json`), state
 * (`<todo>/.state/<key>.json`), decision log (`.log.jsonl`), lock (`.lock`)
 * and stop marker (`.stop`).
 * Throws for a scope `resolveScope` could not have produced.
 */
export function scopePaths(todoDir: string, scope: Scope): ScopePaths {
  assertScope(scope);
  return checkedScopePaths(todoDir, scope);
}

/**
 * `scopePaths` for a scope whose key was checked a moment ago (by the
 * `parseScopeKey` that made it from a file name): a whole-store scan would
 * otherwise check every key twice. Paths are still joined by `containedPath`.
 */
export function checkedScopePaths(todoDir: string, scope: Scope): ScopePaths {
  const stateDir = containedPath(todoDir, STATE_FOLDER);
  const paths: ScopePaths = {
    todos: containedPath(todoDir, `${scope.key}.json`),
    state: containedPath(stateDir, `${scope.key}.json`),
    log: containedPath(stateDir, `${scope.key}.log.jsonl`),
    lock: containedPath(stateDir, `${scope.key}.lock`),
    stop: containedPath(stateDir, `${scope.key}.stop`),
    dirs: [],
  };
  const dirs = new Set<string>([stateDir]);
  for (const file of [paths.todos, paths.state]) {
    for (let dir = dirname(file); dir !== todoDir && dir.startsWith(todoDir); dir = dirname(dir)) {
      dirs.add(dir);
    }
  }
  paths.dirs = [...dirs].sort((a, b) => a.length - b.length);
  return paths;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === "ENOENT";
}

/**
 * Checks the folders a scope uses, refusing any that is a symlink or not a
 * folder (so nothing is ever read or written outside the todo folder through
 * a link), and creates missing ones when `create` is set. Returns false when
 * the todo folder itself is missing and was not created: nothing is stored.
 *
 * Folders already in `verified` are skipped; the caller clears that set
 * whenever a file operation reports a folder gone, so the check is redone.
 */
export function checkDirs(
  todoDir: string,
  dirs: readonly string[],
  create: boolean,
  verified: Set<string> = new Set(),
): boolean {
  if (!verified.has(todoDir)) {
    // The store root and its todo folder must be this user's, before anything is read or written,
    // and no other user may be able to swap the root through a folder above it.
    assertSafeAncestors(dirname(todoDir));
    assertOwnFolder(dirname(todoDir));
    assertOwnFolder(todoDir);
    try {
      if (!statSync(todoDir).isDirectory()) {
        throw new UnsafePathError(`${JSON.stringify(todoDir)} exists and is not a folder`);
      }
    } catch (error) {
      if (!isMissing(error)) throw error;
      if (!create) return false;
      mkdirSync(todoDir, { recursive: true });
    }
    verified.add(todoDir);
  }
  for (const dir of dirs) {
    if (verified.has(dir)) continue;
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    if (stat === undefined) {
      // Nothing to check yet: its files read as missing.
      if (!create) continue;
      try {
        mkdirSync(dir);
      } catch (error) {
        // Another process may have created it between the check and here.
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        if (!lstatSync(dir).isDirectory()) throw new UnsafePathError(`${dir} is not a folder`);
      }
    } else if (stat.isSymbolicLink()) {
      throw new UnsafePathError(`refusing to follow the symlink ${JSON.stringify(dir)}`);
    } else if (!stat.isDirectory()) {
      throw new UnsafePathError(`${JSON.stringify(dir)} exists and is not a folder`);
    }
    verified.add(dir);
  }
  return true;
}

/** Turns an ELOOP from an `O_NOFOLLOW` open into a clear refusal. */
export function symlinkRefusal(path: string, error: unknown): Error {
  if ((error as NodeJS.ErrnoException).code === "ELOOP") {
    return new UnsafePathError(`refusing to follow the symlink ${JSON.stringify(path)}`);
  }
  return error as Error;
}
