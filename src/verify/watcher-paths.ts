import { lstatSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../core/hash/sha256.js";
import { folderProblem } from "./private-folder.js";

/**
 * Where a project's watcher listens: a folder only this user can use, so no
 * other user can answer in the watcher's place or read what it says. The
 * folder must be a real folder (never a symlink), owned by this user, with no
 * access for group or others; anything else is refused and hooks take the
 * slow path.
 */

/** The watchers' folder: `$TODO_CONTINUATION_WATCHER_DIR`, else in `$XDG_RUNTIME_DIR`, else in the temp folder. */
export function watcherFolder(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.TODO_CONTINUATION_WATCHER_DIR;
  if (own !== undefined && own !== "") return own;
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime?.startsWith("/")) return join(runtime, "todo-continuation");
  return join(tmpdir(), `todo-continuation-${process.getuid?.() ?? "user"}`);
}

/** Why `folder` may not hold a watcher's files, or null when it may. */
export { folderProblem };

/** Creates the watchers' folder (0700) when missing; the problem that forbids using it, or null. */
export function preparedFolder(folder: string): string | null {
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return `${folder}: ${String(error)}`;
  }
  return folderProblem(folder);
}

/** Why `path` may not be read as a watcher's file (not a regular file, or someone else's), or null. */
export function fileProblem(path: string, self = process.getuid?.()): string | null {
  try {
    const s = lstatSync(path);
    if (!s.isFile()) return `${path} is not a regular file`;
    if (self !== undefined && s.uid !== self) return `${path} belongs to user ${s.uid}`;
    return null;
  } catch {
    return `${path} does not exist`;
  }
}

/** True when `pid` is a live watcher process (not a process that reused a dead watcher's id). */
export function isWatcher(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("watcher-main.js");
  } catch {
    return false;
  }
}

export interface WatcherFiles {
  folder: string;
  /** The watcher's key: the start of every file name of its own. */
  key: string;
  /** Created exclusively by the hook that starts a watcher: two hooks racing start one. */
  start: string;
  /** Created exclusively by the watcher: its process id and project folder; one watcher per key. */
  pid: string;
}

/** One watcher per cache file (project folder, check and store folder). */
export function watcherFiles(folder: string, cacheFile: string): WatcherFiles {
  const key = sha256Hex(cacheFile).slice(0, 20);
  const base = join(folder, key);
  return { folder, key, start: `${base}.start`, pid: `${base}.pid` };
}

/**
 * A question's files: the hook writes `.t.` and renames it to `.q.` (the
 * watcher sees the rename); the watcher writes `.u.` and renames it to `.a.`.
 */
export function exchangeFiles(files: WatcherFiles, nonce: string) {
  const base = join(files.folder, files.key);
  return {
    draft: `${base}.t.${nonce}`,
    question: `${base}.q.${nonce}`,
    draftAnswer: `${base}.u.${nonce}`,
    answer: `${base}.a.${nonce}`,
  };
}

/** The nonce of a question file of watcher `key`, or null for any other name. */
export function questionNonce(key: string, name: string): string | null {
  const prefix = `${key}.q.`;
  if (!name.startsWith(prefix)) return null;
  const nonce = name.slice(prefix.length);
  return /^[0-9a-z-]{1,40}$/.test(nonce) ? nonce : null;
}

/** The watchers running from `folder`, each with its project folder (for `doctor`). */
export function runningWatchers(folder: string): { pid: number; project: string }[] {
  if (folderProblem(folder) !== null) return [];
  const out: { pid: number; project: string }[] = [];
  for (const name of readdirSync(folder).filter((n) => n.endsWith(".pid"))) {
    try {
      const [pid = "", project = ""] = readFileSync(join(folder, name), "utf8").split("\n");
      process.kill(Number(pid), 0);
      out.push({ pid: Number(pid), project });
    } catch {
      // Gone, or not ours to signal: not running for this user.
    }
  }
  return out;
}
