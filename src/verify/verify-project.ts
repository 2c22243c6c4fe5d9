import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseCheckResult } from "../core/engine/state.js";
import type { CheckResult, VerifySettings } from "../core/types.js";
import { runCheck } from "./run-check.js";
import { type TreeSnapshot, treeSnapshot, type Witness, witnessHolds } from "./tree.js";

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
}

function paths(cacheDir: string, cwd: string, command: string) {
  const key = createHash("sha256")
    .update(`${resolve(cwd)}\0${command}`)
    .digest("hex")
    .slice(0, 20);
  const dir = join(cacheDir, "verify");
  return { dir, cache: join(dir, `${key}.json`), lock: join(dir, `${key}.lock`) };
}

function readCache(path: string, cwd: string, command: string): CacheRecord | null {
  try {
    const raw = JSON.parse(readFileSync(path, "utf8")) as Partial<CacheRecord>;
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
      typeof w.statHash === "string"
        ? w
        : null;
    return { version: 1, cwd: raw.cwd, command, fingerprint: raw.fingerprint, witness, result };
  } catch {
    // Missing or unreadable: the check simply runs.
    return null;
  }
}

function writeCache(path: string, record: CacheRecord): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, JSON.stringify(record));
  renameSync(tmp, path);
}

function tryLock(lock: string, staleAfterMs: number, now: number): boolean {
  try {
    writeFileSync(lock, JSON.stringify({ pid: process.pid, at: now }), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  // Held: abandoned when its holder is gone or it is older than any run could be.
  let holder: { pid?: unknown; at?: unknown } = {};
  try {
    holder = JSON.parse(readFileSync(lock, "utf8")) as typeof holder;
  } catch {
    // Half-written: judge by its age alone.
  }
  const age =
    now -
    (typeof holder.at === "number"
      ? holder.at
      : (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0));
  let alive = true;
  if (typeof holder.pid === "number") {
    try {
      process.kill(holder.pid, 0);
    } catch (error) {
      alive = (error as NodeJS.ErrnoException).code === "EPERM";
    }
  }
  if (alive && age < staleAfterMs) return false;
  rmSync(lock, { force: true });
  return tryLock(lock, staleAfterMs, now);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The check's result for the tree as it is now. An unchanged tree is never
 * checked twice: first the witness (a stat of every file git sees, no git
 * started), then the full fingerprint, against the result kept in
 * `cacheDir`. A changed tree is always checked. Sessions finishing in the
 * same project at once share one run: the first takes a lock file, the
 * others wait for its result.
 */
export async function verifyProject(options: VerifyProjectOptions): Promise<VerifyOutcome> {
  const { settings, cwd, cacheDir } = options;
  const now = options.now ?? Date.now;
  const files = paths(cacheDir, cwd, settings.command);
  const cached = readCache(files.cache, cwd, settings.command);
  if (cached?.witness != null && witnessHolds(cached.witness)) {
    return { result: { ...cached.result, cached: true }, ran: false, via: "witness" };
  }
  const snapshot: TreeSnapshot = treeSnapshot(cwd);
  if (cached !== null && cached.fingerprint === snapshot.fingerprint) {
    // Same tree, new stats (a touched file): keep the result, refresh the witness.
    writeCache(files.cache, { ...cached, witness: snapshot.witness });
    return { result: { ...cached.result, cached: true }, ran: false, via: "fingerprint" };
  }
  mkdirSync(files.dir, { recursive: true });
  const staleAfter = settings.timeoutMs + LOCK_GRACE_MS;
  const waitUntil = now() + staleAfter;
  let waited = false;
  while (!tryLock(files.lock, staleAfter, now())) {
    waited = true;
    if (now() > waitUntil) break;
    await sleep(POLL_MS);
  }
  try {
    if (waited) {
      const shared = readCache(files.cache, cwd, settings.command);
      if (shared !== null && shared.fingerprint === snapshot.fingerprint) {
        return { result: { ...shared.result, cached: true }, ran: false, via: "shared" };
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
    writeCache(files.cache, {
      version: 1,
      cwd: resolve(cwd),
      command: settings.command,
      fingerprint: snapshot.fingerprint,
      witness: snapshot.witness,
      result,
    });
    return { result, ran: true, via: "ran" };
  } finally {
    rmSync(files.lock, { force: true });
  }
}
