import {
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  renameSync,
  rmdirSync,
  unlinkSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import type { DecisionLogEntry, Scope, ScopeSnapshot } from "../../core/types.js";
import type { FileStore } from "../file/file-store.js";
import { newLockOwner, tryLock, unlock } from "../file/lock.js";
import { previousGeneration } from "../file/log.js";
import { scopePaths } from "../file/paths.js";
import { preservedCopies } from "../file/preserve.js";
import { waitPath } from "../file/wait-queue.js";

export type ScopePruneOutcome = "pruned" | "locked" | "kept" | "missing";

/** What one scope owns on disk now: its documents, stop marker, log generation and kept copies. */
function scopeFiles(
  store: FileStore,
  scope: Scope,
): { files: string[]; lock: string; dirs: string[] } {
  const paths = scopePaths(store.todoDir, scope);
  const main = [paths.todos, paths.state, paths.log];
  const files = [
    ...main,
    paths.stop,
    previousGeneration(paths.log),
    ...main.flatMap(preservedCopies),
  ].filter((file) => existsSync(file));
  return { files, lock: paths.lock, dirs: paths.dirs };
}

/** Moves a file, across file systems too; never over an existing one. */
export function moveFile(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  if (existsSync(to))
    throw new Error(`${to} already exists in the archive; nothing was moved over it`);
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    copyFileSync(from, to, constants.COPYFILE_EXCL);
    unlinkSync(from);
  }
}

/**
 * Archives (moves under `archive`, at the same path relative to the store
 * root, so copying the archive back restores it) or deletes one scope's
 * files, holding its lock: a scope whose lock is held, or that someone waits
 * for, is left alone (`locked`). `stillDue` re-judges the scope as read
 * under the lock; false leaves it (`kept`).
 */
export async function pruneFileScope(
  store: FileStore,
  scope: Scope,
  action: { archive: string } | { delete: true },
  stillDue: (snapshot: ScopeSnapshot, last: DecisionLogEntry | null) => boolean,
): Promise<ScopePruneOutcome> {
  const { files, lock: lockPath, dirs } = scopeFiles(store, scope);
  if (files.length === 0) return "missing";
  if (existsSync(waitPath(lockPath))) return "locked";
  // A lock left by a crashed holder is taken over as the store would; a live one is not waited for.
  const lock = tryLock(lockPath, newLockOwner(), { staleMs: 30_000 });
  if (lock === null) return "locked";
  try {
    const snapshot = await store.read(scope);
    const last = (await store.readLog(scope, 1))[0] ?? null;
    if (!stillDue(snapshot, last)) return "kept";
    // Re-listed under the lock: what a writer added before we took it goes too.
    for (const file of scopeFiles(store, scope).files) {
      if ("archive" in action) moveFile(file, join(action.archive, relative(store.root, file)));
      else unlinkSync(file);
    }
  } finally {
    unlock(lock);
  }
  // Folders the scope leaves empty go too (innermost first); shared ones stay.
  for (const dir of [...dirs].reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      break;
    }
  }
  return "pruned";
}
