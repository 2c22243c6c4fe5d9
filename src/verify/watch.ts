import { createHash } from "node:crypto";
import { type FSWatcher, statfsSync, watch } from "node:fs";
import { basename, dirname, join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { perEvent } from "../core/per-event.js";
import { type Witness, witnessDirs } from "./tree.js";

/**
 * A watch on the folders of a witness, for a long-lived process (OpenCode,
 * pi, the runtime in an app): while no event has arrived since the watch
 * began, the tree is as it was when the watch began, and a stop need not stat
 * every file again.
 *
 * Only where the kernel reports every change to the process at once: Linux's
 * inotify, on local file systems (a network or FUSE mount does not report
 * changes made elsewhere). Elsewhere, or above MAX_WATCHED_DIRS, there is no
 * watch and the stat witness does the work.
 */

/** More folders than this: no watch (inotify watches are a per-user budget). */
export const MAX_WATCHED_DIRS = 1_000;
/** Watches kept at once (one per project and command); the oldest is closed first. */
export const MAX_WATCHES = 8;

/** statfs magic numbers of local file systems whose changes all pass through this kernel. */
const LOCAL_FS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0x3153464a, // jfs
  0x52654973, // reiserfs
]);

export interface TreeWatch {
  /** The fingerprint whose tree the watch vouches for while clean. */
  fingerprint: string;
  /** Set by any event (or error) on a watched folder. */
  dirty: boolean;
  close(): void;
}

let enabled = process.platform === "linux";

/** For tests and the bench: turn watching off (the stat witness alone) or back on. */
export function setWatching(on: boolean): void {
  enabled = on && process.platform === "linux";
  if (!enabled) for (const key of [...live.keys()]) drop(key);
}

const live = new Map<string, TreeWatch>();

function drop(key: string): void {
  live.get(key)?.close();
  live.delete(key);
}

// A hook process's watches end with it; the resident server's events keep none of another's.
perEvent(() => {
  for (const key of [...live.keys()]) drop(key);
});

function localFileSystem(path: string): boolean {
  try {
    return LOCAL_FS.has(Number(statfsSync(path).type));
  } catch {
    return false;
  }
}

/**
 * What a watch of `witness` covers, as a hash: its root, its folders and
 * git's own files. Two witnesses with the same scope are watched the same way
 * (the shared watcher vouches only for the scope it watches).
 */
export function watchScope(witness: Witness): string {
  const own = witness.paths.slice(witness.paths.length - (witness.own ?? 0));
  return createHash("sha256")
    .update([witness.root, ...witnessDirs(witness.paths), "\0", ...own].join("\0"))
    .digest("hex");
}

/**
 * Starts watching the witness's folders. Call it BEFORE checking the stats:
 * a change after this call marks the watch dirty, one before it shows in the
 * stats. Returns null when the tree cannot be watched soundly.
 */
export function startWatch(
  witness: Witness,
  fingerprint: string,
  onDirty?: () => void,
): TreeWatch | null {
  if (!enabled) return null;
  const dirs = witnessDirs(witness.paths);
  if (dirs.length > MAX_WATCHED_DIRS || !localFileSystem(witness.root)) return null;
  // In git's own folders only git's own files matter (HEAD, index, refs):
  // git writes many others (logs, FETCH_HEAD, objects) on its own.
  const ownStart = witness.paths.length - (witness.own ?? 0);
  const ownNames = new Map<string, Set<string>>();
  for (const path of witness.paths.slice(ownStart)) {
    const dir = dirname(path);
    const names = ownNames.get(dir) ?? new Set<string>();
    names.add(basename(path));
    ownNames.set(dir, names);
  }
  const treeDirs = new Set(witnessDirs(witness.paths.slice(0, ownStart)));
  const watchers: FSWatcher[] = [];
  const state: TreeWatch = {
    fingerprint,
    dirty: false,
    close: () => {
      for (const w of watchers) w.close();
      watchers.length = 0;
    },
  };
  const soil = () => {
    if (state.dirty) return;
    state.dirty = true;
    state.close();
    onDirty?.();
  };
  try {
    for (const dir of dirs) {
      const names = treeDirs.has(dir) ? null : (ownNames.get(dir) ?? null);
      const w = watch(join(witness.root, dir), { persistent: false }, (_event, name) => {
        if (names === null || name === null || names.has(String(name))) soil();
      });
      w.on("error", soil);
      watchers.push(w);
    }
  } catch {
    // A folder gone, or the inotify budget spent: no watch.
    state.close();
    return null;
  }
  return state;
}

/** Keeps `watch` as the one for `key`, closing the one it replaces (and the oldest beyond MAX_WATCHES). */
export function keepWatch(key: string, watch: TreeWatch): void {
  drop(key);
  live.set(key, watch);
  while (live.size > MAX_WATCHES) drop(live.keys().next().value as string);
}

/**
 * True when the watch for `key` vouches that the tree still has
 * `fingerprint`. Events the kernel queued before this call are delivered
 * first: two turns of the event loop pass through libuv's poll phase, which
 * reads the inotify queue to the end.
 */
export async function watchHolds(key: string, fingerprint: string): Promise<boolean> {
  const watch = live.get(key);
  if (watch === undefined || watch.fingerprint !== fingerprint || watch.dirty) {
    if (watch !== undefined) drop(key);
    return false;
  }
  await nextTurn();
  await nextTurn();
  if (watch.dirty) {
    drop(key);
    return false;
  }
  return true;
}
