import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { hostname } from "node:os";
import { randomHex } from "../../core/hash/random-hex.js";
import { sha256Hex } from "../../core/hash/sha256.js";
import { perEvent } from "../../core/per-event.js";
import { writeAll } from "./atomic.js";
import { O_NOFOLLOW, symlinkRefusal } from "./paths.js";

/**
 * A per-scope lock between processes. Taking it creates the lock path
 * atomically, failing when it exists; the entry records who holds it. A holder
 * that crashed leaves its entry behind, so a waiter takes the lock over when
 * the holder's pid is gone (same host) or the entry is older than `staleMs`
 * (a hung holder, another host, a reused pid).
 *
 * The entry is a symlink whose target is the holder's record: one syscall
 * creates it with its content, one reads it back, and it is never followed.
 * Where symlinks are unavailable (Windows without the privilege, FAT) the
 * entry is a regular file created with O_EXCL instead. Both kinds exclude each
 * other, since either creation fails on an existing name.
 *
 * Taking over is itself guarded by a second O_EXCL file, and under that guard
 * the waiter re-reads the entry and removes it only if it still holds the
 * very record judged stale. Without the guard, two waiters could both judge
 * one dead lock stale, and the slower one would remove the lock the faster
 * one had just created.
 */

const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;
const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW;

/** A lock file with no readable record is a holder that died between create and write. */
const UNWRITTEN_GRACE_MS = 2_000;

/** A takeover guard is held for microseconds; one this old belongs to a crashed waiter. */
const GUARD_STALE_MS = 2_000;

/**
 * This machine's name, and its hash (short enough for the symlink target to stay inside the
 * inode on most file systems). Read on first use, not at load: nothing computed at load may
 * belong to one run (a process image saved after load, a V8 startup snapshot, would carry it).
 */
let host: { name: string; id: string } | undefined;
// A name may change while the resident server lives: each event reads it, as its process would.
perEvent(() => {
  host = undefined;
});
function thisHost(): { name: string; id: string } {
  if (host === undefined) {
    const name = hostname();
    host = { name, id: sha256Hex(name).slice(0, 8) };
  }
  return host;
}

/** Errors meaning "this file system or OS will not create symlinks here". */
const NO_SYMLINKS = new Set(["EPERM", "EOPNOTSUPP", "ENOTSUP", "ENOSYS", "EINVAL"]);

/** What a lock entry records about its holder. */
export interface LockRecord {
  pid: number;
  /** Host name (file entries) or `#` plus a short hash of it (symlink entries). */
  host: string;
  /** Names the holder's temporary files, so a takeover can clean them up. */
  tag: string;
  /** Unique per acquisition; the whole identity of one holding. */
  token: string;
  /** When it was taken (ms). */
  at: number;
}

export interface HeldLock {
  path: string;
  record: LockRecord;
  kind: "link" | "file";
  /**
   * File entries only (-1 otherwise): kept open while the lock is held, it
   * pins the inode, so `ino`/`dev` cannot be reused by a newer lock file.
   */
  fd: number;
  ino: number;
  dev: number;
}

/** The holder's identity for one store instance. */
export interface LockOwner {
  pid: number;
  /** `<pid>-<8 hex>`: unique per store instance, names its temporary files. */
  tag: string;
  next: number;
  /** Set once symlinks turned out unavailable: file entries from then on. */
  useFiles: boolean;
}

export function newLockOwner(): LockOwner {
  return {
    pid: process.pid,
    tag: `${process.pid}-${randomHex(4)}`,
    next: 0,
    useFiles: false,
  };
}

export class LockLostError extends Error {
  override name = "LockLostError";
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** True unless the process is certainly gone (ESRCH); EPERM means it exists. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errno(error) !== "ESRCH";
  }
}

function isThisHost(record: LockRecord): boolean {
  return record.host === thisHost().name || record.host === `#${thisHost().id}`;
}

/** `tc1.<pid>.<8 hex>.<seq>.<host id>`: the symlink target naming a holder. */
function linkTarget(record: LockRecord): string {
  return record.token;
}

function parseLinkTarget(target: string, at: number): LockRecord | null {
  const match = /^tc1\.(\d{1,10})\.([0-9a-f]{8})\.(\d{1,15})\.([0-9a-f]{8})$/.exec(target);
  if (!match) return null;
  const pid = Number(match[1]);
  return { pid, host: `#${match[4]}`, tag: `${pid}-${match[2]}`, token: target, at };
}

function parseFileRecord(text: string): LockRecord | null {
  try {
    const raw = JSON.parse(text) as Partial<LockRecord>;
    if (
      typeof raw.pid === "number" &&
      typeof raw.host === "string" &&
      typeof raw.tag === "string" &&
      typeof raw.token === "string" &&
      typeof raw.at === "number"
    ) {
      return raw as LockRecord;
    }
  } catch {
    // An unreadable record is judged by the entry's age alone.
  }
  return null;
}

interface Observed {
  /** What identifies this very entry: the link target or the file's content. */
  identity: string;
  record: LockRecord | null;
  ageMs: number;
}

/** Reads the current lock entry, or null when there is none. */
function observe(path: string): Observed | null {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return null;
  const ageMs = Date.now() - stat.mtimeMs;
  if (stat.isSymbolicLink()) {
    let target: string;
    try {
      target = readlinkSync(path);
    } catch (error) {
      if (errno(error) === "ENOENT") return null;
      throw error;
    }
    return { identity: `link:${target}`, record: parseLinkTarget(target, stat.mtimeMs), ageMs };
  }
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    if (errno(error) === "ENOENT") return null;
    throw symlinkRefusal(path, error);
  }
  try {
    const buffer = Buffer.alloc(4096);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, n).toString("utf8");
    const { ino, dev } = fstatSync(fd);
    return { identity: `file:${dev}:${ino}:${text}`, record: parseFileRecord(text), ageMs };
  } finally {
    closeSync(fd);
  }
}

function isStale(seen: Observed, staleMs: number): boolean {
  if (seen.record === null) return seen.ageMs > Math.min(UNWRITTEN_GRACE_MS, staleMs);
  if (isThisHost(seen.record) && !isProcessAlive(seen.record.pid)) return true;
  return seen.ageMs > staleMs;
}

/** Creates `path` exclusively as a file holding `content`; its open descriptor, or null if it exists. */
function createExclusiveFile(
  path: string,
  content: string,
): { fd: number; ino: number; dev: number } | null {
  let fd: number;
  try {
    fd = openSync(path, CREATE_FLAGS, 0o644);
  } catch (error) {
    if (errno(error) === "EEXIST") return null;
    throw symlinkRefusal(path, error);
  }
  try {
    writeAll(fd, Buffer.from(content));
    const stat = fstatSync(fd);
    return { fd, ino: stat.ino, dev: stat.dev };
  } catch (error) {
    closeSync(fd);
    unlinkSync(path);
    throw error;
  }
}

/**
 * Removes a stale lock under the takeover guard. Returns the record of the
 * holder whose lock was removed, or undefined when nothing was removed.
 */
function takeOver(path: string, stale: Observed, staleMs: number): LockRecord | null | undefined {
  const guard = `${path}.steal`;
  const guardRecord = JSON.stringify({ pid: process.pid, host: thisHost().name, at: Date.now() });
  const guarded = createExclusiveFile(guard, guardRecord);
  if (guarded === null) {
    const other = observe(guard);
    const crashed =
      other !== null &&
      (other.ageMs > GUARD_STALE_MS ||
        (other.record !== null && isThisHost(other.record) && !isProcessAlive(other.record.pid)));
    if (crashed) {
      try {
        unlinkSync(guard);
      } catch {
        // Someone else cleared it first.
      }
    }
    return undefined;
  }
  try {
    const now = observe(path);
    if (now === null || now.identity !== stale.identity || !isStale(now, staleMs)) {
      return undefined;
    }
    unlinkSync(path);
    return now.record;
  } finally {
    unlinkSync(guard);
    closeSync(guarded.fd);
  }
}

function newRecord(owner: LockOwner, kind: HeldLock["kind"]): LockRecord {
  const seq = ++owner.next;
  const at = Date.now();
  if (kind === "file") {
    return {
      pid: owner.pid,
      host: thisHost().name,
      tag: owner.tag,
      token: `${owner.tag}.${seq}`,
      at,
    };
  }
  const rand = owner.tag.slice(owner.tag.indexOf("-") + 1);
  const token = `tc1.${owner.pid}.${rand}.${seq}.${thisHost().id}`;
  return { pid: owner.pid, host: `#${thisHost().id}`, tag: owner.tag, token, at };
}

/** One creation attempt: the held lock, null when the path exists. */
function create(path: string, owner: LockOwner): HeldLock | null {
  if (!owner.useFiles) {
    const record = newRecord(owner, "link");
    try {
      symlinkSync(linkTarget(record), path);
      return { path, record, kind: "link", fd: -1, ino: 0, dev: 0 };
    } catch (error) {
      if (errno(error) === "EEXIST") return null;
      if (!NO_SYMLINKS.has(errno(error) ?? "")) throw error;
      owner.useFiles = true;
    }
  }
  const record = newRecord(owner, "file");
  const created = createExclusiveFile(path, JSON.stringify(record));
  return created === null ? null : { path, record, kind: "file", ...created };
}

export interface TryLockOptions {
  staleMs: number;
  /** Told about every lock taken over from a crashed or hung holder (null: record unreadable). */
  onTakeOver?: (previous: LockRecord | null) => void;
}

/**
 * One attempt to take the lock, without waiting: the held lock, or null when
 * a live holder has it. A stale lock is taken over and the attempt repeated.
 */
export function tryLock(path: string, owner: LockOwner, options: TryLockOptions): HeldLock | null {
  for (let attempt = 0; attempt < 3; attempt++) {
    const held = create(path, owner);
    if (held !== null) return held;
    const seen = observe(path);
    if (seen === null) continue; // Released between our attempt and our look.
    if (!isStale(seen, options.staleMs)) return null;
    const previous = takeOver(path, seen, options.staleMs);
    if (previous === undefined) return null;
    options.onTakeOver?.(previous);
  }
  return null;
}

/** Whether the entry at the lock's path is still this very holding. */
export function stillOurs(lock: HeldLock): boolean {
  if (lock.kind === "link") {
    try {
      return readlinkSync(lock.path) === linkTarget(lock.record);
    } catch {
      return false;
    }
  }
  const stat = lstatSync(lock.path, { throwIfNoEntry: false });
  return stat !== undefined && stat.ino === lock.ino && stat.dev === lock.dev;
}

/** Throws LockLostError when the lock was taken over (this holder stalled past `staleMs`). */
export function assertStillHeld(lock: HeldLock): void {
  if (!stillOurs(lock)) {
    throw new LockLostError(
      `the lock ${JSON.stringify(lock.path)} was taken over by another process`,
    );
  }
}

/** Releases the lock, unless it was taken over meanwhile (then it is no longer ours to remove). */
export function unlock(lock: HeldLock): void {
  try {
    if (stillOurs(lock)) unlinkSync(lock.path);
  } catch (error) {
    if (errno(error) !== "ENOENT") throw error;
  } finally {
    if (lock.fd >= 0) closeSync(lock.fd);
  }
}

/** Reads who holds a lock, for error messages and diagnostics. */
export function lockHolder(path: string): LockRecord | null {
  return observe(path)?.record ?? null;
}

/** A readable name for a holder's host in messages. */
export function describeHost(record: LockRecord): string {
  if (record.host === `#${thisHost().id}`) return thisHost().name;
  return record.host.startsWith("#") ? "another host" : record.host;
}
