import {
  closeSync,
  constants,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { randomHex } from "../../core/hash/random-hex.js";
import { flushBeside } from "../../core/resident.js";
import { O_NOFOLLOW, symlinkRefusal } from "./paths.js";

const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | O_NOFOLLOW;
const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0);

/** Windows cannot open a folder to flush it; renames there are durable on their own. */
const CAN_SYNC_DIRS = process.platform !== "win32";

/** A tag no other writer uses: this process's id and 8 random hex digits. */
export function uniqueTag(): string {
  return `${process.pid}-${randomHex(4)}`;
}

/** The temporary sibling a holder tagged `tag` writes before renaming over `path`. */
export function tempPathFor(path: string, tag: string): string {
  return `${path}.${tag}.tmp`;
}

export function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/**
 * Writes and flushes `bytes` to a new file at `path` (replacing any leftover).
 * A write that fails part way (no space, quota, I/O error) removes the file it
 * started, so a refused write leaves nothing behind.
 */
export function writeDurably(path: string, bytes: Uint8Array, mode = 0o666): void {
  let fd: number;
  try {
    fd = openSync(path, TEMP_FLAGS, mode);
  } catch (error) {
    throw symlinkRefusal(path, error);
  }
  try {
    try {
      writeAll(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    discard(path);
    throw error;
  }
}

/**
 * Writes and flushes each of `files` as {@link writeDurably} does. In the resident hook server,
 * with more than one, the first file's flush runs on its helper thread while this one flushes the
 * rest (`flush-helper.ts` in the server): their journal commits come together, not one after the
 * other. Whatever fails, no file of them is left behind.
 */
export function writeEachDurably(files: readonly { path: string; bytes: Uint8Array }[]): void {
  const beside = files.length > 1 ? flushBeside() : null;
  if (beside === null) {
    for (const file of files) writeDurably(file.path, file.bytes);
    return;
  }
  const fds: number[] = [];
  try {
    try {
      for (const file of files) {
        try {
          fds.push(openSync(file.path, TEMP_FLAGS, 0o666));
        } catch (error) {
          throw symlinkRefusal(file.path, error);
        }
        writeAll(fds[fds.length - 1] as number, file.bytes);
      }
      const wait = beside(fds[0] as number);
      let failure: { error: unknown } | null = null;
      try {
        for (const fd of wait === null ? fds : fds.slice(1)) fsyncSync(fd);
      } catch (error) {
        failure = { error };
      }
      // Always waited for: the helper's descriptor stays open until its flush is over.
      try {
        wait?.();
      } catch (error) {
        failure ??= { error };
      }
      if (failure !== null) throw failure.error;
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  } catch (error) {
    // Only those it made: a name it could not open (a symlink planted there) is not its own.
    for (const file of files.slice(0, fds.length)) discard(file.path);
    throw error;
  }
}

/** Removes a file a failed write started; the write's own error is the one reported. */
function discard(path: string): void {
  try {
    removeIfPresent(path);
  } catch {
    // Nothing more can be done; the store's orphan sweep removes it later.
  }
}

/**
 * Replaces `path` with `bytes` all at once: a temporary sibling is written,
 * flushed and renamed over it. Whatever fails, the temporary is removed and
 * `path` keeps its old content.
 */
export function replaceFile(path: string, bytes: Uint8Array, tag: string, mode = 0o666): void {
  const temp = tempPathFor(path, tag);
  writeDurably(temp, bytes, mode);
  try {
    renameSync(temp, path);
  } catch (error) {
    discard(temp);
    throw error;
  }
}

/** Something that flushes folders (see {@link DirHandles}). */
export interface DirSyncer {
  sync(dir: string): void;
}

/**
 * {@link replaceFile} for writers outside the store (settings, trust, ledgers):
 * a temporary of its own name, then the folder flushed. The folder's flush is
 * best effort: the new content is in place by then, and a folder that cannot
 * be opened for it (a mount that refuses) must not fail the write.
 */
export function replaceFileDurably(path: string, bytes: Uint8Array, mode = 0o666): void {
  replaceFile(path, bytes, uniqueTag(), mode);
  try {
    syncDir(dirname(path));
  } catch {
    // Durable enough: the rename is done.
  }
}

/** Flushes a folder so the renames and unlinks inside it survive a power cut. */
export function syncDir(dir: string): void {
  if (!CAN_SYNC_DIRS) return;
  const fd = openSync(dir, DIR_FLAGS);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Opens the folder for every flush: for one-off writers. */
export const SYNC_EACH_TIME: DirSyncer = { sync: syncDir };

/**
 * Keeps one open handle per folder, so a flush is one syscall instead of
 * three. A store holds a handful of folders; `closeAll` releases them (on
 * close, and whenever a folder is found removed, since a handle would then
 * point at the old folder).
 */
export class DirHandles implements DirSyncer {
  readonly #fds = new Map<string, number>();

  sync(dir: string): void {
    if (!CAN_SYNC_DIRS) return;
    let fd = this.#fds.get(dir);
    if (fd === undefined) {
      fd = openSync(dir, DIR_FLAGS);
      this.#fds.set(dir, fd);
    }
    try {
      fsyncSync(fd);
    } catch (error) {
      this.closeAll();
      throw error;
    }
  }

  closeAll(): void {
    for (const fd of this.#fds.values()) {
      try {
        closeSync(fd);
      } catch {
        // Already gone; nothing to release.
      }
    }
    this.#fds.clear();
  }
}

export function syncDirsOf(paths: readonly string[], dirs: DirSyncer = SYNC_EACH_TIME): void {
  for (const dir of new Set(paths.map((p) => dirname(p)))) dirs.sync(dir);
}

/** Removes a file if it exists. */
export function removeIfPresent(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
