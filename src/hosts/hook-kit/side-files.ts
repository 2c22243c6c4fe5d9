import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * What hook hosts keep beside the file store, per session: claims (`<host>-events/<session>/`,
 * see event-claim.ts) and the nudge notes earlier versions wrote for Copilot CLI
 * (`<host>-nudges/<session>.sha256`; a nudge's digest is now kept in the scope's state).
 * Each is small, but one is left behind by every session that ended, scope or no scope (a
 * session without a list still claims its events), so `prune` removes those nothing touched
 * for its duration. A claim folder's time moves with every claim made or taken away in it.
 */
const SIDE_FOLDER = /^[a-z][a-z0-9-]*-(events|nudges)$/;

/** The side files and claim folders under the store folder `root` last touched before `before`. */
export function staleSideEntries(root: string, before: number): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const stale: string[] = [];
  for (const name of names.sort()) {
    if (!SIDE_FOLDER.test(name)) continue;
    const folder = join(root, name);
    if (!lstatSync(folder, { throwIfNoEntry: false })?.isDirectory()) continue;
    for (const entry of readdirSync(folder).sort()) {
      const path = join(folder, entry);
      const mtime = lstatSync(path, { throwIfNoEntry: false })?.mtimeMs;
      if (mtime !== undefined && mtime < before) stale.push(path);
    }
  }
  return stale;
}

/** Removes `paths` (a claim folder with its claims; symlinks are removed, never followed). */
export function removeSideEntries(paths: readonly string[]): { removed: number; failed: string[] } {
  let removed = 0;
  const failed: string[] = [];
  for (const path of paths) {
    try {
      rmSync(path, { recursive: true, force: true });
      removed += 1;
    } catch (error) {
      failed.push(`${path}: ${(error as Error).message}`);
    }
  }
  return { removed, failed };
}
