import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseScopeKey } from "../../core/scope/scope.js";
import type { Scope } from "../../core/types.js";
import { STATE_FOLDER } from "./paths.js";

/** File endings that hold a scope's data, and so make it listed. */
const DATA_SUFFIXES = [".log.jsonl", ".json"] as const;

function entries(dir: string): Dirent[] {
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

/** Collects the keys of the data files in one base folder (the todo folder or its state folder). */
function collect(base: string, found: Set<string>): void {
  for (const entry of entries(base)) {
    if (entry.isFile()) {
      const key = keyOf("", entry.name);
      if (key !== null && parseScopeKey(key) !== null) found.add(key);
    } else if (entry.isDirectory() && !entry.name.startsWith(".")) {
      // Symlinked folders are not followed: Dirent reports them as links.
      for (const inner of entries(join(base, entry.name))) {
        if (!inner.isFile()) continue;
        const key = keyOf(`${entry.name}/`, inner.name);
        if (key !== null && parseScopeKey(key) !== null) found.add(key);
      }
    }
  }
}

/**
 * Every scope that has a list, a state or a log under `todoDir`, sorted by
 * key. Files whose names are not valid scope keys (temporaries, locks, kept
 * aside copies, anything added by hand) are ignored.
 */
export function listScopeKeys(todoDir: string): Scope[] {
  const found = new Set<string>();
  collect(todoDir, found);
  const stateDir = join(todoDir, STATE_FOLDER);
  if (lstatSync(stateDir, { throwIfNoEntry: false })?.isDirectory()) collect(stateDir, found);
  return [...found]
    .sort()
    .map((key) => parseScopeKey(key))
    .filter((scope): scope is Scope => scope !== null);
}
