import { lstatSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { removeIfPresent } from "./atomic.js";
import { isProcessAlive } from "./lock.js";

/** `<file>.<pid>-<8 hex>.tmp`: the temporary a writer tagged with its pid leaves. */
const TEMP_NAME = /^\.(\d{1,10})-[0-9a-f]{8}\.tmp$/;

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/**
 * Removes temporaries of `files` that no live transaction can own (caller
 * holds the scope's lock): those of a process that is gone, and any older than
 * `staleMs` (a writer on another host, a reused pid). The caller's own
 * temporaries (`ownTag`) are left alone. Returns how many were removed.
 */
export function removeOrphanedTemps(
  files: readonly string[],
  ownTag: string,
  staleMs: number,
): number {
  const byDir = new Map<string, string[]>();
  for (const file of files) {
    const dir = dirname(file);
    byDir.set(dir, [...(byDir.get(dir) ?? []), basename(file)]);
  }
  let removed = 0;
  for (const [dir, names] of byDir) {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch (error) {
      if (errno(error) === "ENOENT" || errno(error) === "ENOTDIR") continue;
      throw error;
    }
    for (const entry of entries) {
      const owner = names.find((name) => entry.startsWith(`${name}.`));
      if (owner === undefined) continue;
      const match = TEMP_NAME.exec(entry.slice(owner.length));
      if (match === null || entry.slice(owner.length + 1, -4) === ownTag) continue;
      const path = join(dir, entry);
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (stat === undefined || !stat.isFile()) continue;
      const dead = !isProcessAlive(Number(match[1]));
      if ((dead || Date.now() - stat.mtimeMs > staleMs) && removeIfPresent(path)) removed++;
    }
  }
  return removed;
}
