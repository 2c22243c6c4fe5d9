import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { perEvent } from "../core/per-event.js";
import type { CheckResult, VerifySettings } from "../core/types.js";
import {
  type CacheRecord,
  cachePaths,
  readCache,
  readStamp,
  type StampRecord,
  writeCache,
} from "./cache-record.js";
import { runCheck } from "./run-check.js";
import { type TreeSnapshot, treeSnapshot, witnessHolds } from "./tree.js";
import { keepWatch, startWatch, watchHolds, watchScope } from "./watch.js";
import {
  type AskResult,
  askWatcher,
  filesFor,
  startWatcher,
  type WatcherOptions,
} from "./watcher-client.js";

/** How often a session waiting on another's run looks for its result. */
const POLL_MS = 100;
/** A lock older than the check's time limit plus this is abandoned (its holder died). */
const LOCK_GRACE_MS = 10_000;

export interface VerifyProjectOptions {
  settings: VerifySettings;
  /** The session's project folder: where the check runs and whose tree is fingerprinted. */
  cwd: string;
  /** Where results and locks are kept (the store folder, or a cache folder). */
  cacheDir: string;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  /**
   * Ask the project's shared watcher first, and start one when none runs
   * (hook processes, which look once and exit; Linux). Absent: no watcher.
   */
  watcher?: WatcherOptions;
}

/** What happened, for logs and tests: a fresh run, the fast cached path, or a cached result after git. */
export interface VerifyOutcome {
  result: CheckResult;
  ran: boolean;
  /** `witness`: the stats matched, git was not started. */
  via: "ran" | "witness" | "fingerprint" | "shared";
  /**
   * On the `witness` path, what vouched for the tree: a watch on its folders
   * kept by this process since the last look (`watch`), the project's shared
   * watcher (`watcher`), or a stat of every file (`stats`).
   */
  witness?: "watch" | "watcher" | "stats";
}

async function tryLock(lock: string, staleAfterMs: number, now: number): Promise<boolean> {
  try {
    await writeFile(lock, JSON.stringify({ pid: process.pid, at: now }), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  // Held: abandoned when its holder is gone or it is older than any run could be.
  let holder: { pid?: unknown; at?: unknown } = {};
  try {
    holder = JSON.parse(await readFile(lock, "utf8")) as typeof holder;
  } catch {
    // Half-written: judge by its age alone.
  }
  const age =
    now -
    (typeof holder.at === "number"
      ? holder.at
      : ((await stat(lock).catch(() => null))?.mtimeMs ?? 0));
  let alive = true;
  if (typeof holder.pid === "number") {
    try {
      process.kill(holder.pid, 0);
    } catch (error) {
      alive = (error as NodeJS.ErrnoException).code === "EPERM";
    }
  }
  if (alive && age < staleAfterMs) return false;
  await rm(lock, { force: true });
  return tryLock(lock, staleAfterMs, now);
}

/** Projects (cache files) this process has looked at: a watch starts at the second look. */
const looked = new Set<string>();
// A hook process looks once; the resident server's events must not start watches of their own.
perEvent(() => {
  looked.clear();
});

/** A cached result, marked as such. */
function reuse(record: CacheRecord | StampRecord, via: VerifyOutcome["via"]): VerifyOutcome {
  return { result: { ...record.result, cached: true }, ran: false, via };
}

/**
 * The check's result for the tree as it is now. An unchanged tree is never
 * checked twice: first a watch this process keeps on the tree's folders
 * (Linux, local file systems), then the witness (a stat of every file git
 * sees, no git started), then the full fingerprint, against the result kept
 * in `cacheDir`. A changed tree is always checked. Sessions finishing in the
 * same project at once share one run: the first takes a lock file, the
 * others wait for its result. Nothing here blocks the event loop for long:
 * git runs as a child process, files are read asynchronously, stats go in
 * slices with a turn of the loop between them, and waits are timers.
 */
export async function verifyProject(options: VerifyProjectOptions): Promise<VerifyOutcome> {
  const { settings, cwd, cacheDir } = options;
  const now = options.now ?? Date.now;
  const files = cachePaths(cacheDir, cwd, settings.command);
  // A hook's stop: the stamp and one question to the project's watcher, no
  // stat, no git. The question goes before any look at the tree: an answer
  // naming a clean watch of the same folders vouches for what this stop sees next.
  let asked: AskResult | null = null;
  let stamped: StampRecord | null = null;
  if (options.watcher !== undefined) {
    stamped = readStamp(files.stamp, cwd, settings.command);
    if (stamped !== null) {
      asked = await ask(options.watcher, files.cache, stamped.watch.id, stamped.watch.scope);
      const a = asked.answer;
      if (
        a?.state === "unchanged" &&
        a.id === stamped.watch.id &&
        a.scope === stamped.watch.scope
      ) {
        return { ...reuse(stamped, "witness"), witness: "watcher" };
      }
    }
  }
  const cached = await readCache(files.cache, cwd, settings.command);
  if (cached !== null && (await watchHolds(files.cache, cached.fingerprint))) {
    return { ...reuse(cached, "witness"), witness: "watch" };
  }
  if (options.watcher !== undefined && asked === null && cached?.witness != null) {
    asked = await ask(options.watcher, files.cache, null, watchScope(cached.witness));
  }
  /** Records that the watch the watcher named vouches for `record`'s tree, when it watches the same folders. */
  const stamp = async (record: CacheRecord): Promise<void> => {
    const a = asked?.answer;
    if (record.witness === null || a == null || a.state === "unknown") return;
    if (a.scope !== watchScope(record.witness)) return;
    if (a.id === stamped?.watch.id && record.fingerprint === stamped.fingerprint) return;
    const { witness: _, ...rest } = record;
    await writeCache(files.stamp, { ...rest, watch: { id: a.id, scope: a.scope } });
  };
  if (cached?.witness != null) {
    // The watch starts before the stats: a change after it is an event, one
    // before it a stat. Only from this process's second look at the project:
    // a hook's process looks once and exits, and would pay for a watch it
    // never asks.
    const again = looked.has(files.cache);
    looked.add(files.cache);
    const watch = again ? startWatch(cached.witness, cached.fingerprint) : null;
    if (await witnessHolds(cached.witness)) {
      if (watch !== null) keepWatch(files.cache, watch);
      await stamp(cached);
      return { ...reuse(cached, "witness"), witness: "stats" };
    }
    watch?.close();
  }
  const snapshot: TreeSnapshot = await treeSnapshot(cwd);
  if (cached !== null && cached.fingerprint === snapshot.fingerprint) {
    // Same tree, new stats (a touched file): keep the result, refresh the witness.
    const refreshed: CacheRecord = { ...cached, witness: snapshot.witness };
    await writeCache(files.cache, refreshed);
    await stamp(refreshed);
    return reuse(cached, "fingerprint");
  }
  await mkdir(files.dir, { recursive: true });
  const staleAfter = settings.timeoutMs + LOCK_GRACE_MS;
  const waitUntil = now() + staleAfter;
  let waited = false;
  while (!(await tryLock(files.lock, staleAfter, now()))) {
    waited = true;
    if (now() > waitUntil) break;
    await sleep(POLL_MS);
  }
  try {
    if (waited) {
      const shared = await readCache(files.cache, cwd, settings.command);
      if (shared !== null && shared.fingerprint === snapshot.fingerprint) {
        return reuse(shared, "shared");
      }
    }
    const run = await runCheck({
      command: settings.command,
      cwd,
      timeoutMs: settings.timeoutMs,
      ...(options.env === undefined ? {} : { env: options.env }),
      now,
    });
    const result: CheckResult = { ...run, tree: snapshot.fingerprint };
    const record: CacheRecord = {
      version: 1,
      cwd: resolve(cwd),
      command: settings.command,
      fingerprint: snapshot.fingerprint,
      witness: snapshot.witness,
      result,
    };
    await writeCache(files.cache, record);
    await stamp(record);
    // The first verify of a project starts its watcher (after the cache it reads exists).
    if (options.watcher !== undefined && asked === null) startWatcher(options.watcher, files.cache);
    return { result, ran: true, via: "ran" };
  } finally {
    await rm(files.lock, { force: true });
  }
}

/** Asks the project's watcher; one that is not there is started for the next stop. */
async function ask(
  watcher: WatcherOptions,
  cacheFile: string,
  stamp: string | null,
  scope: string,
): Promise<AskResult> {
  const files = filesFor(watcher, cacheFile);
  const asked = askWatcher(files, { stamp, scope }, watcher.askTimeoutMs);
  if (asked.absent) startWatcher(watcher, cacheFile);
  return asked;
}
