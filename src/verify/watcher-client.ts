import { spawn } from "node:child_process";
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  folderProblem,
  preparedFolder,
  socketProblem,
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
 * Every doubt (no watcher, a refused folder or socket, an error, a late or
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
/** A start claim older than this is abandoned (its watcher never came up). */
const START_STALE_MS = 10_000;

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
  /** `absent`: no watcher listens there (start one); otherwise one may, but did not answer soundly. */
  | { answer: null; absent: boolean };

const NO_ANSWER: AskResult = { answer: null, absent: false };

export function filesFor(options: WatcherOptions, cacheFile: string): WatcherFiles {
  return watcherFiles(options.folder ?? watcherFolder(), cacheFile);
}

/** Asks the watcher at `socket`; resolves within about `timeoutMs`, never rejects. */
export function askWatcher(
  socket: string,
  request: WatchRequest,
  timeoutMs: number = ASK_TIMEOUT_MS,
): Promise<AskResult> {
  if (folderProblem(dirname(socket)) !== null) return Promise.resolve(NO_ANSWER);
  const problem = socketProblem(socket);
  if (problem !== null) {
    return Promise.resolve({ answer: null, absent: problem.endsWith("does not exist") });
  }
  return new Promise((resolve) => {
    let settled = false;
    let text = "";
    const conn = createConnection(socket);
    const done = (result: AskResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(NO_ANSWER), timeoutMs);
    conn.setEncoding("utf8");
    conn.on("connect", () => conn.write(formatRequest(request)));
    conn.on("data", (chunk: string) => {
      text += chunk;
      if (text.length > MAX_LINE) return done(NO_ANSWER);
      if (!text.includes("\n")) return;
      const answer = parseAnswer(text);
      done(answer === null ? NO_ANSWER : { answer, absent: false });
    });
    conn.on("error", (error: NodeJS.ErrnoException) => {
      // A socket file left by a watcher that died: nobody listens.
      done({ answer: null, absent: error.code === "ECONNREFUSED" || error.code === "ENOENT" });
    });
    conn.on("close", () => done(NO_ANSWER));
  });
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
  if (!claim(files.start)) return false;
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

function claim(path: string): boolean {
  const body = JSON.stringify({ pid: process.pid, at: Date.now() });
  try {
    writeFileSync(path, body, { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
  }
  // A claim whose watcher never came up (it died before listening).
  const age = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0);
  if (age < START_STALE_MS) return false;
  rmSync(path, { force: true });
  try {
    writeFileSync(path, body, { flag: "wx", mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}
