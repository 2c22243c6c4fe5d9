import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseCheckResult } from "../core/engine/state.js";
import type { CheckResult, VerifySettings } from "../core/types.js";
import { runCheck } from "./run-check.js";
import { type TreeSnapshot, treeSnapshot, type Witness, witnessHolds } from "./tree.js";
import { keepWatch, startWatch, watchHolds } from "./watch.js";

/** How often a session waiting on another's run looks for its result. */
const POLL_MS = 100;
/** A lock older than the check's time limit plus this is abandoned (its holder died). */
const LOCK_GRACE_MS = 10_000;

interface CacheRecord {
  version: 1;
  cwd: string;
  command: string;
  fingerprint: string;
  witness: Witness | null;
  result: CheckResult;
}

export interface VerifyProjectOptions {
  settings: VerifySettings;
  /** The session's project folder: where the check runs and whose tree is fingerprinted. */
  cwd: string;
  /** Where results and locks are kept (the store folder, or a cache folder). */
  cacheDir: string;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

/** What happened, for logs and tests: a fresh run, the fast cached path, or a cached result after git. */
export interface VerifyOutcome {
  result: CheckResult;
  ran: boolean;
  /** `witness`: the stats matched, git was not started. */
  via: "ran" | "witness" | "fingerprint" | "shared";
  /**
   * On the `witness` path, what vouched for the tree: a watch on its folders
   * kept by this process since the last look (`watch`), or a stat of every
   * file (`stats`).
   */
  witness?: "watch" | "stats";
}

function paths(cacheDir: string, cwd: string, command: string) {
  const key = createHash("sha256")
    .update(`${resolve(cwd)}\0${command}`)
    .digest("hex")
    .slice(0, 20);
  const dir = join(cacheDir, "verify");
  return { dir, cache: join(dir, `${key}.json`), lock: join(dir, `${key}.lock`) };
}

async function readCache(path: string, cwd: string, command: string): Promise<CacheRecord | null> {
  try {
    const raw = JSON.parse(await readFile(path, "utf8")) as Partial<CacheRecord>;
    const result = parseCheckResult(raw.result);
    if (
      raw.version !== 1 ||
      raw.cwd !== resolve(cwd) ||
      raw.command !== command ||
      typeof raw.fingerprint !== "string" ||
      result === null
    ) {
      return null;
    }
    const w = raw.witness;
    const witness =
      w != null &&
      typeof w.root === "string" &&
      Array.isArray(w.paths) &&
      typeof w.statHash === "string" &&
      (w.own === undefined || typeof w.own === "number")
        ? w
        : null;
    return { version: 1, cwd: raw.cwd, command, fingerprint: raw.fingerprint, witness, result };
  } catch {
    // Missing or unreadable: the check simply runs.
    return null;
  }
}

let tmpSerial = 0;

async function writeCache(path: string, record: CacheRecord): Promise<void> {
  tmpSerial += 1;
  const tmp = `${path}.${process.pid}.${Date.now()}.${tmpSerial}.tmp`;
  await writeFile(tmp, JSON.stringify(record));
  await rename(tmp, path);
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

/** A cached result, marked as such. */
function reuse(record: CacheRecord, via: VerifyOutcome["via"]): VerifyOutcome {
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
  const files = paths(cacheDir, cwd, settings.command);
  const cached = await readCache(files.cache, cwd, settings.command);
  if (cached !== null && (await watchHolds(files.cache, cached.fingerprint))) {
    return { ...reuse(cached, "witness"), witness: "watch" };
  }
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
      return { ...reuse(cached, "witness"), witness: "stats" };
    }
    watch?.close();
  }
  const snapshot: TreeSnapshot = await treeSnapshot(cwd);
  if (cached !== null && cached.fingerprint === snapshot.fingerprint) {
    // Same tree, new stats (a touched file): keep the result, refresh the witness.
    await writeCache(files.cache, { ...cached, witness: snapshot.witness });
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
    await writeCache(files.cache, {
      version: 1,
      cwd: resolve(cwd),
      command: settings.command,
      fingerprint: snapshot.fingerprint,
      witness: snapshot.witness,
      result,
    });
    return { result, ran: true, via: "ran" };
  } finally {
    await rm(files.lock, { force: true });
  }
}
