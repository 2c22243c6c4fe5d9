import { linkSync } from "node:fs";
import { afterAnswer, answerPending } from "../../core/resident.js";
import { removeIfPresent, tempPathFor, uniqueTag } from "./atomic.js";

/**
 * Replacing a document frees its old file, and on some disks that is the dearest step of a
 * commit: on an ext4 mounted with `discard`, removing the last name of a flushed 1.5 KB file
 * took 0.36 ms, against 0.03 ms for the same rename when the old file kept another name. A hook
 * answered by the resident server is waiting on that step for nothing: what it removes is read
 * by no one. So inside the server's event a replaced document's old file first gets a second
 * name (a temporary's, `<document>.<pid>-<hex>.tmp`), the rename frees nothing, and the second
 * name is removed once the answer is sent. Outside the server (a hook's own process, the CLI)
 * nothing changes: the host waits for the whole process, so there is nothing to win.
 *
 * A second name a crash leaves behind is a temporary of a process that is gone, which the
 * store's orphan sweep removes (`orphans.ts`); readers never list temporaries.
 */

/**
 * Gives the file at `path` a second name, when the removal can wait for the answer; that name,
 * or null (no server event runs, or the file system refused a hard link: the rename frees the
 * file as before).
 */
export function holdForLater(path: string): string | null {
  if (!answerPending()) return null;
  const held = tempPathFor(path, uniqueTag());
  try {
    linkSync(path, held);
  } catch {
    return null;
  }
  return held;
}

/** Removes a name {@link holdForLater} gave, after the answer (or now, outside an event). */
export function releaseLater(held: string): void {
  if (afterAnswer(() => release(held))) return;
  release(held);
}

/** Removes a held name now; best effort (a leftover is an orphan the sweep removes). */
export function release(held: string): void {
  try {
    removeIfPresent(held);
  } catch {
    // Left for the orphan sweep.
  }
}
