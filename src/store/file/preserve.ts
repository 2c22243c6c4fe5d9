import { linkSync, readdirSync, renameSync, rmSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Copies of documents the store could not read in full, kept before a write
 * replaces them: `<file>.corrupt-<13-digit ms>[-<n>]`. Each gets its own name,
 * so a second broken edit never replaces the first; the newest
 * `MAX_PRESERVED_COPIES` per file are kept and older ones removed.
 */

export const MAX_PRESERVED_COPIES = 5;

/** What follows a document's file name in the names of its preserved copies. */
export const MARK = ".corrupt";

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** Preserved copies of `path`, oldest first (the older single `.corrupt` name included). */
export function preservedCopies(path: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch (error) {
    if (errno(error) === "ENOENT" || errno(error) === "ENOTDIR") return [];
    throw error;
  }
  return copiesAmong(path, names);
}

/**
 * `preservedCopies` for several paths without blocking the event loop: each
 * folder is listed once (asynchronously, names only) for all the paths in it.
 */
export async function preservedCopiesOf(paths: readonly string[]): Promise<Map<string, string[]>> {
  return await new MarkedNames().copiesOf(paths);
}

/**
 * The names holding the copy mark in folders, each folder listed once
 * (asynchronously) for the life of the object: one scan's worth of lookups.
 */
export class MarkedNames {
  readonly #folders = new Map<string, Promise<string[]>>();

  /** The preserved copies of each of `paths`, oldest first. */
  async copiesOf(paths: readonly string[]): Promise<Map<string, string[]>> {
    const folders = [...new Set(paths.map((path) => dirname(path)))];
    for (const dir of folders) {
      if (!this.#folders.has(dir)) this.#folders.set(dir, markedNames(dir));
    }
    const listed = await Promise.all(folders.map((dir) => this.#folders.get(dir)!));
    const byFolder = new Map(folders.map((dir, i) => [dir, listed[i]!]));
    return new Map(paths.map((path) => [path, copiesAmong(path, byFolder.get(dirname(path))!)]));
  }
}

/** The names in `dir` holding the copy mark (missing folders hold none). */
async function markedNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.includes(MARK));
  } catch (error) {
    if (errno(error) === "ENOENT" || errno(error) === "ENOTDIR") return [];
    throw error;
  }
}

/** The preserved copies of `path` among `names` (entries of its folder), oldest first. */
export function copiesAmong(path: string, names: Iterable<string>): string[] {
  const dir = dirname(path);
  const prefix = `${basename(path)}${MARK}`;
  return [...names]
    .filter(
      (name) =>
        name.startsWith(prefix) &&
        (name === prefix || /^-\d{13}(-\d+)?$/.test(name.slice(prefix.length))),
    )
    .sort((a, b) => copyOrder(a, prefix) - copyOrder(b, prefix) || a.localeCompare(b))
    .map((name) => join(dir, name));
}

function copyOrder(name: string, prefix: string): number {
  const stamp = /^-(\d{13})/.exec(name.slice(prefix.length));
  return stamp ? Number(stamp[1]) : 0;
}

/**
 * Keeps the current content of `path` under a name of its own and returns it
 * (null when there is nothing at `path`). The content is hard-linked, so the
 * document itself stays in place until the write replaces it; what cannot be
 * linked (a folder) is moved aside instead.
 */
export function preserveCopy(path: string, now: number = Date.now()): string | null {
  const stamp = String(Math.max(0, Math.trunc(now)))
    .padStart(13, "0")
    .slice(-13);
  for (let n = 0; n < 1000; n++) {
    const copy = `${path}${MARK}-${stamp}${n === 0 ? "" : `-${n}`}`;
    try {
      linkSync(path, copy);
    } catch (error) {
      const code = errno(error);
      if (code === "EEXIST") continue;
      if (code === "ENOENT") return null;
      if (code !== "EPERM" && code !== "EISDIR") throw error;
      try {
        renameSync(path, copy);
      } catch (moveError) {
        if (errno(moveError) === "ENOENT") return null;
        throw moveError;
      }
    }
    prunePreserved(path);
    return copy;
  }
  throw new Error(`${path}: too many preserved copies in one millisecond`);
}

/** Removes all but the newest `MAX_PRESERVED_COPIES` preserved copies of `path`. */
export function prunePreserved(path: string): void {
  const copies = preservedCopies(path);
  for (const old of copies.slice(0, Math.max(0, copies.length - MAX_PRESERVED_COPIES))) {
    rmSync(old, { recursive: true, force: true });
  }
}
