import { spawn } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomHex } from "../core/hash/random-hex.js";
import { claimStart } from "./private-folder.js";
import {
  exchangeFiles,
  fileProblem,
  folderProblem,
  isWatcher,
  preparedFolder,
  type WatcherFiles,
  watcherFiles,
  watcherFolder,
} from "./watcher-paths.js";
import {
  formatRequest,
  MAX_LINE,
  parseAnswer,
  type WatchAnswer,
  type WatchRequest,
} from "./watcher-protocol.js";

/**
 * The hook's side of the shared watcher: ask it, with a short time limit,
 * whether the tree changed since a stamped watch; start one when none runs.
 * Every doubt (no watcher, a refused folder or file, an error, a late or
 * malformed answer) comes back as no answer, and the caller takes the slow path.
 */

/**
 * How long a hook waits for the watcher's answer. Short, but not shorter
 * than a loaded machine needs to schedule the watcher: at load average 17 on
 * 2 cores the answer took about 20 ms, and the slow path it would fall back
 * to costs a new process about 100 ms there.
 */
export const ASK_TIMEOUT_MS = 20;
/** A watcher nobody asked for this long exits. */
export const WATCHER_IDLE_MS = 30 * 60_000;
/** How often a watcher checks that its project folder is still there. */
export const WATCHER_CHECK_MS = 5_000;

export interface WatcherOptions {
  /** The watchers' folder; default `watcherFolder()`. */
  folder?: string;
  askTimeoutMs?: number;
  /** For the watcher this hook starts. */
  idleMs?: number;
  checkMs?: number;
  /** The watcher's script; default `dist/verify/watcher-main.js` of this package. */
  main?: string;
}

export type AskResult =
  | { answer: WatchAnswer; absent: false }
  /** `absent`: no watcher runs (start one); otherwise one may, but did not answer soundly. */
  | { answer: null; absent: boolean };

const NO_ANSWER: AskResult = { answer: null, absent: false };
/**
 * How long the hook first sleeps before it looks for the answer; each sleep
 * after doubles, up to 1 ms. Every wake-up costs CPU (about 0.1 ms each on a
 * loaded 2-core machine): an idle machine answers by the first looks, a busy
 * one is not looked at every 0.1 ms.
 */
const FIRST_POLL_MS = 0.1;
/** Made on first wait: most processes that load this module never wait on a watcher. */
let pause: Int32Array | undefined;

export function filesFor(options: WatcherOptions, cacheFile: string): WatcherFiles {
  return watcherFiles(options.folder ?? watcherFolder(), cacheFile);
}

/**
 * Asks the watcher of `files`, waiting at most about `timeoutMs`; never
 * throws. The question is a file renamed into the watchers' folder, which
 * the watcher watches with the same inotify queue as the tree: when it reads
 * the question, it has read every event queued before it. The answer is a
 * file renamed in by the watcher. Synchronous, and cheap in a new process
 * (a few file calls; a socket's first use costs a new Node process about
 * 3 ms of CPU): a hook's process has nothing else to do meanwhile.
 */
export function askWatcher(
  files: WatcherFiles,
  request: WatchRequest,
  timeoutMs: number = ASK_TIMEOUT_MS,
): AskResult {
  const problem = folderProblem(files.folder);
  // A folder not there yet (or cleaned away) is started afresh; an unsafe one never is.
  if (problem !== null) return { answer: null, absent: problem.endsWith("does not exist") };
  const pid = Number(readText(files.pid)?.split("\n")[0]);
  if (!(pid > 0) || !isWatcher(pid)) return { answer: null, absent: true };
  const ex = exchangeFiles(files, `${process.pid}-${randomHex(4)}`);
  try {
    writeFileSync(ex.draft, formatRequest(request), { flag: "wx", mode: 0o600 });
    renameSync(ex.draft, ex.question);
    const until = performance.now() + timeoutMs;
    pause ??= new Int32Array(new SharedArrayBuffer(4));
    for (let wait = FIRST_POLL_MS; performance.now() < until; wait = Math.min(1, wait * 2)) {
      Atomics.wait(pause, 0, 0, wait);
      if (!existsSync(ex.answer)) continue;
      if (fileProblem(ex.answer) !== null) return NO_ANSWER;
      const answer = parseAnswer(readText(ex.answer) ?? "");
      return answer === null ? NO_ANSWER : { answer, absent: false };
    }
    return NO_ANSWER;
  } catch {
    return NO_ANSWER;
  } finally {
    for (const path of [ex.draft, ex.question, ex.answer]) rmSync(path, { force: true });
  }
}

/** At most MAX_LINE characters of the file, or null when it cannot be read. */
function readText(path: string): string | null {
  try {
    const text = readFileSync(path, "utf8");
    return text.length > MAX_LINE ? null : text;
  } catch {
    return null;
  }
}

function defaultMain(): string {
  // From dist/verify/ (this module) and from dist/hook/ (a hook bundle) alike.
  return join(dirname(fileURLToPath(import.meta.url)), "..", "verify", "watcher-main.js");
}

/**
 * Starts a watcher for `cacheFile`, detached, without waiting for it. At most
 * one start at a time per watcher: the start claim is created exclusively,
 * and the watcher removes it once it listens. False when nothing was started.
 */
export function startWatcher(options: WatcherOptions, cacheFile: string): boolean {
  if (process.platform !== "linux") return false;
  const folder = options.folder ?? watcherFolder();
  const main = options.main ?? defaultMain();
  if (!existsSync(main) || preparedFolder(folder) !== null) return false;
  const files = watcherFiles(folder, cacheFile);
  if (!claimStart(files.start)) return false;
  try {
    const child = spawn(
      process.execPath,
      [
        main,
        "--folder",
        folder,
        "--cache",
        cacheFile,
        "--idle-ms",
        String(options.idleMs ?? WATCHER_IDLE_MS),
        "--check-ms",
        String(options.checkMs ?? WATCHER_CHECK_MS),
      ],
      // Nothing of the hook's: no stdio (the host waits on the hook's pipes), no env, no folder.
      { detached: true, stdio: "ignore", cwd: "/", env: {} },
    );
    child.on("error", () => rmSync(files.start, { force: true }));
    child.unref();
    return true;
  } catch {
    rmSync(files.start, { force: true });
    return false;
  }
}
