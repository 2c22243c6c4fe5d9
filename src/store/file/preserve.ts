import { linkSync, readdirSync, renameSync, rmSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Copies of documents the store could not read in full, kept before a write
 * replaces them: `<file>.corrupt.<n>-<13-digit ms>`. `n` is one more than the
 * largest of the file's copies, so creation order survives any clock jump;
 * the time is only for people. Each copy gets its own name, so a second
 * broken edit never replaces the first; the newest `MAX_PRESERVED_COPIES` per
 * file, by `n`, are kept and older ones removed. Copies named by an earlier
 * version (`<file>.corrupt`, `<file>.corrupt-<ms>[-<k>]`) rank before every
 * numbered one.
 */

export const MAX_PRESERVED_COPIES = 5;

/** What follows a document's file name in the names of its preserved copies. */
export const MARK = ".corrupt";
const NUMBERED = /^\.(\d{1,15})-\d{13}$/;
const TIMED = /^-(\d{13})(?:-(\d+))?$/;

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** Where a copy ranks, oldest first: [generation of its naming, its numbers...]; null for another file. */
function rankOf(suffix: string): number[] | null {
  if (suffix === "") return [0];
  const timed = TIMED.exec(suffix);
  if (timed) return [1, Number(timed[1]), Number(timed[2] ?? 0)];
  const numbered = NUMBERED.exec(suffix);
  if (numbered) return [2, Number(numbered[1])];
  return null;
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

interface Copy {
  name: string;
  rank: number[];
}

function copiesOf(path: string): Copy[] {
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch (error) {
    if (errno(error) === "ENOENT" || errno(error) === "ENOTDIR") return [];
    throw error;
  }
  return rankedAmong(path, names);
}

function rankedAmong(path: string, names: Iterable<string>): Copy[] {
  const dir = dirname(path);
  const prefix = `${basename(path)}${MARK}`;
  const copies: Copy[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const rank = rankOf(name.slice(prefix.length));
    if (rank !== null) copies.push({ name: join(dir, name), rank });
  }
  return copies.sort((a, b) => compareRanks(a.rank, b.rank) || a.name.localeCompare(b.name));
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
  return rankedAmong(path, names).map((copy) => copy.name);
}

/** Preserved copies of `path`, oldest first (by creation, whatever the clock said). */
export function preservedCopies(path: string): string[] {
  return copiesOf(path).map((copy) => copy.name);
}

/** The number the next copy of `path` takes: above every numbered copy there is. */
function nextNumber(path: string): number {
  let largest = 0;
  for (const { rank } of copiesOf(path)) {
    if (rank[0] === 2) largest = Math.max(largest, rank[1] ?? 0);
  }
  return largest + 1;
}

/**
 * Keeps the current content of `path` under a name of its own and returns it
 * (null when there is nothing at `path`). The content is hard-linked, so the
 * document itself stays in place until the write replaces it; what cannot be
 * linked (a folder) is moved aside instead.
 */
export function preserveCopy(path: string, now: number = Date.now()): string | null {
  const stamp = String(Math.max(0, Math.trunc(Number.isFinite(now) ? now : 0)))
    .padStart(13, "0")
    .slice(-13);
  const first = nextNumber(path);
  for (let n = first; n < first + 1000; n++) {
    const copy = `${path}${MARK}.${n}-${stamp}`;
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
  throw new Error(`${path}: could not find a free name for a preserved copy`);
}

/** Removes all but the newest `MAX_PRESERVED_COPIES` preserved copies of `path`. */
export function prunePreserved(path: string): void {
  const copies = preservedCopies(path);
  for (const old of copies.slice(0, Math.max(0, copies.length - MAX_PRESERVED_COPIES))) {
    rmSync(old, { recursive: true, force: true });
  }
}
