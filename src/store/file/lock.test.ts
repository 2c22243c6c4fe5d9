import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  assertStillHeld,
  type HeldLock,
  isProcessAlive,
  LockLostError,
  type LockOwner,
  lockHolder,
  newLockOwner,
  tryLock,
  unlock,
} from "./lock.js";

const STALE = { staleMs: 10_000 };

function fileOwner(): LockOwner {
  return { ...newLockOwner(), useFiles: true };
}

function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

describe.each([
  ["a symlink entry", newLockOwner],
  ["a file entry", fileOwner],
])("the scope lock as %s", (_, makeOwner) => {
  let dir: string;
  let path: string;
  const held: HeldLock[] = [];

  function take(owner: LockOwner = makeOwner()): HeldLock | null {
    const lock = tryLock(path, owner, STALE);
    if (lock) held.push(lock);
    return lock;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tc-lock-"));
    path = join(dir, "scope.lock");
  });

  afterEach(() => {
    for (const lock of held.splice(0)) unlock(lock);
    rmSync(dir, { recursive: true, force: true });
  });

  it("is exclusive, against both kinds of entry, and records its holder", () => {
    const owner = makeOwner();
    const first = take(owner)!;
    expect(first).not.toBeNull();
    expect(lockHolder(path)).toMatchObject({ pid: process.pid, tag: owner.tag });
    expect(take(newLockOwner())).toBeNull();
    expect(take(fileOwner())).toBeNull();
    unlock(first);
    held.splice(0);
    expect(lstatSync(path, { throwIfNoEntry: false })).toBeUndefined();
    expect(take()).not.toBeNull();
  });

  it("gives every acquisition its own token", () => {
    const owner = makeOwner();
    const first = tryLock(path, owner, STALE)!;
    unlock(first);
    const second = take(owner)!;
    expect(second.record.token).not.toBe(first.record.token);
  });

  it("notices a takeover and then leaves the new holder's lock alone", () => {
    const mine = tryLock(path, makeOwner(), STALE)!;
    unlinkSync(path);
    const theirs = take()!;
    expect(() => assertStillHeld(mine)).toThrow(LockLostError);
    unlock(mine);
    expect(lockHolder(path)?.token).toBe(theirs.record.token);
    expect(() => assertStillHeld(theirs)).not.toThrow();
  });

  it("takes over from a holder that died, reporting its record", () => {
    const dead = deadPid();
    const ghost: LockOwner = { ...makeOwner(), pid: dead, tag: `${dead}-deadbeef` };
    const stale = tryLock(path, ghost, STALE)!;
    const taken: unknown[] = [];
    const lock = tryLock(path, makeOwner(), {
      ...STALE,
      onTakeOver: (previous) => taken.push(previous),
    });
    expect(lock).not.toBeNull();
    held.push(lock!);
    expect(taken).toEqual([expect.objectContaining({ pid: dead, tag: `${dead}-deadbeef` })]);
    if (stale.fd >= 0) closeSync(stale.fd);
  });

  it("leaves a live holder's fresh lock alone", () => {
    take();
    expect(tryLock(path, makeOwner(), { staleMs: 60_000, onTakeOver: () => {} })).toBeNull();
  });
});

describe("lock entries", () => {
  it("are symlinks that never point anywhere, or JSON files where symlinks are off", () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-lock-kind-"));
    try {
      const link = tryLock(join(dir, "a.lock"), newLockOwner(), STALE)!;
      expect(lstatSync(join(dir, "a.lock")).isSymbolicLink()).toBe(true);
      expect(existsSync(join(dir, "a.lock"))).toBe(false); // the target does not exist
      const file = tryLock(join(dir, "b.lock"), fileOwner(), STALE)!;
      expect(JSON.parse(readFileSync(join(dir, "b.lock"), "utf8"))).toMatchObject({
        pid: process.pid,
        token: file.record.token,
      });
      unlock(link);
      unlock(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("isProcessAlive", () => {
  it("knows this process, a finished one and nonsense", () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(deadPid())).toBe(false);
    expect(isProcessAlive(-1)).toBe(false);
    expect(isProcessAlive(Number.NaN)).toBe(false);
  });
});
