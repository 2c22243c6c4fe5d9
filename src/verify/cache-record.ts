import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseCheckResult } from "../core/engine/state.js";
import type { CheckResult } from "../core/types.js";
import type { Witness } from "./tree.js";

/** The check's last result for one project folder and command, with what vouches for its tree. */
export interface CacheRecord {
  version: 1;
  cwd: string;
  command: string;
  fingerprint: string;
  witness: Witness | null;
  result: CheckResult;
}

/**
 * A small record beside the cache, all a hook's stop reads when the project's
 * shared watcher runs: the watch (id and scope) that was running, clean,
 * before `fingerprint` was taken, and the result for that tree. While the
 * watcher says that watch saw nothing, the tree still has `fingerprint`, and
 * `result` holds; nothing else is needed (the witness is not read).
 */
export interface StampRecord {
  version: 1;
  cwd: string;
  command: string;
  fingerprint: string;
  watch: { id: string; scope: string };
  result: CheckResult;
}

export function cachePaths(cacheDir: string, cwd: string, command: string) {
  const key = createHash("sha256")
    .update(`${resolve(cwd)}\0${command}`)
    .digest("hex")
    .slice(0, 20);
  const dir = join(cacheDir, "verify");
  return {
    dir,
    cache: join(dir, `${key}.json`),
    stamp: join(dir, `${key}.stamp.json`),
    lock: join(dir, `${key}.lock`),
  };
}

/** The record at `path`, or null when missing, unreadable or not for this folder and command (any command: null). */
export async function readCache(
  path: string,
  cwd: string | null,
  command: string | null,
): Promise<CacheRecord | null> {
  try {
    const raw = JSON.parse(await readFile(path, "utf8")) as Partial<CacheRecord>;
    const result = parseCheckResult(raw.result);
    if (
      raw.version !== 1 ||
      typeof raw.cwd !== "string" ||
      typeof raw.command !== "string" ||
      (cwd !== null && raw.cwd !== resolve(cwd)) ||
      (command !== null && raw.command !== command) ||
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
      w.paths.every((p) => typeof p === "string") &&
      typeof w.statHash === "string" &&
      (w.own === undefined || typeof w.own === "number")
        ? w
        : null;
    const record: CacheRecord = {
      version: 1,
      cwd: raw.cwd,
      command: raw.command,
      fingerprint: raw.fingerprint,
      witness,
      result,
    };
    return record;
  } catch {
    // Missing or unreadable: the check simply runs.
    return null;
  }
}

/** The stamp at `path`, or null when missing, unreadable or not for this folder and command. */
export function readStamp(path: string, cwd: string, command: string): StampRecord | null {
  try {
    // A few hundred bytes, read at every hook stop: synchronously (a promise
    // read costs a new process far more CPU than the read itself).
    const raw = JSON.parse(readFileSync(path, "utf8")) as Partial<StampRecord>;
    const result = parseCheckResult(raw.result);
    const watch = raw.watch;
    if (
      raw.version !== 1 ||
      raw.cwd !== resolve(cwd) ||
      raw.command !== command ||
      typeof raw.fingerprint !== "string" ||
      typeof watch?.id !== "string" ||
      typeof watch.scope !== "string" ||
      result === null
    ) {
      return null;
    }
    const stamp = { id: watch.id, scope: watch.scope };
    return {
      version: 1,
      cwd: raw.cwd,
      command,
      fingerprint: raw.fingerprint,
      watch: stamp,
      result,
    };
  } catch {
    return null;
  }
}

let tmpSerial = 0;

export async function writeCache(path: string, record: CacheRecord | StampRecord): Promise<void> {
  tmpSerial += 1;
  const tmp = `${path}.${process.pid}.${Date.now()}.${tmpSerial}.tmp`;
  await writeFile(tmp, JSON.stringify(record));
  await rename(tmp, path);
}
