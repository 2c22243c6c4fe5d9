import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { parseScopeKey } from "../../core/scope/scope.js";
import type { Scope } from "../../core/types.js";
import { STATE_FOLDER } from "./paths.js";

/** File endings that hold a scope's data, and so make it listed. */
const DATA_SUFFIXES = [".log.jsonl", ".json"] as const;

export function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw error;
  }
}

/** The scope key a data file name stands for, or null for anything else. */
function keyOf(prefix: string, name: string): string | null {
  const suffix = DATA_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix === undefined) return null;
  return prefix + name.slice(0, -suffix.length);
}

/** Reads one folder's entries; missing folders read as empty. */
export type FolderReader = (dir: string) => Dirent[];

/** Collects the keys of the data files in one base folder (the todo folder or its state folder). */
function collect(base: string, found: Map<string, Scope>, read: FolderReader): void {
  for (const _ of collecting(base, found, read)) {
    // Run to the end at once.
  }
}

/**
 * `collect` as steps: it pauses (yields) every few hundred names, so an
 * asynchronous caller can let the event loop turn between them.
 */
function* collecting(
  base: string,
  found: Map<string, Scope>,
  read: FolderReader,
): Generator<void, void, void> {
  const add = (key: string | null) => {
    if (key === null || found.has(key)) return;
    const scope = parseScopeKey(key);
    if (scope !== null) found.set(key, scope);
  };
  let count = 0;
  for (const entry of read(base)) {
    if (entry.isFile()) {
      add(keyOf("", entry.name));
    } else if (entry.isDirectory() && !entry.name.startsWith(".")) {
      // Symlinked folders are not followed: Dirent reports them as links.
      for (const inner of read(join(base, entry.name))) {
        if (++count % 512 === 0) yield;
        if (!inner.isFile()) continue;
        add(keyOf(`${entry.name}/`, inner.name));
      }
    }
  }
}

/**
 * Every scope that has a list, a state or a log under `todoDir`, sorted by
 * key. Files whose names are not valid scope keys (temporaries, locks, kept
 * aside copies, anything added by hand) are ignored.
 */
export function listScopeKeys(todoDir: string, read: FolderReader = entries): Scope[] {
  const found = new Map<string, Scope>();
  collect(todoDir, found, read);
  const stateDir = join(todoDir, STATE_FOLDER);
  if (lstatSync(stateDir, { throwIfNoEntry: false })?.isDirectory()) collect(stateDir, found, read);
  // Keys compare by UTF-16 code units, as the default sort always did.
  return [...found.keys()].sort().map((key) => found.get(key)!);
}

/**
 * `listScopeKeys` without blocking the event loop: the folders are listed
 * asynchronously (each sub-folder of a base folder at once), then the same
 * keys are collected from the listings.
 */
export async function listScopeKeysAsync(todoDir: string): Promise<Scope[]> {
  const listed = new Map<string, Dirent[]>();
  const load = async (dirs: string[]) => {
    const read = await Promise.all(dirs.map(entriesAsync));
    for (const [i, dir] of dirs.entries()) listed.set(dir, read[i]!);
  };
  const subfolders = (base: string) =>
    (listed.get(base) ?? [])
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
      .map((entry) => join(base, entry.name));
  const stateDir = join(todoDir, STATE_FOLDER);
  await load([todoDir]);
  const stateIsFolder = (listed.get(todoDir) ?? []).some(
    (entry) => entry.name === STATE_FOLDER && entry.isDirectory(),
  );
  await load([...subfolders(todoDir), ...(stateIsFolder ? [stateDir] : [])]);
  if (stateIsFolder) await load(subfolders(stateDir));
  // The names are gone through in slices of at most SLICE_MS, the event loop turning between.
  const read: FolderReader = (dir) => listed.get(dir) ?? [];
  const found = new Map<string, Scope>();
  let sliceStart = performance.now();
  for (const base of stateIsFolder ? [todoDir, stateDir] : [todoDir]) {
    for (const _ of collecting(base, found, read)) {
      if (performance.now() - sliceStart < SLICE_MS) continue;
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  return [...found.keys()].sort().map((key) => found.get(key)!);
}

/** Longest stretch of going through names before the event loop gets a turn. */
const SLICE_MS = 8;

async function entriesAsync(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw error;
  }
}
