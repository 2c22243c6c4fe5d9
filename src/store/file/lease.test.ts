import { lstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { beginEvent } from "../../core/per-event.js";
import { resolveScope } from "../../core/scope/scope.js";
import type { TodoList } from "../../core/types.js";
import { createFileStore, type FileStore } from "./file-store.js";
import { LockLeases } from "./lease.js";
import { lockHolder, newLockOwner, tryLock, unlock } from "./lock.js";
import { scopePaths } from "./paths.js";

const TUI = resolveScope({ kind: "tui" })!;

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function list(content: string): TodoList {
  return { todos: [{ content, status: "pending" }], phases: [], nextId: 1 };
}

function entryExists(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

describe("locks kept between transactions", () => {
  let root: string;
  let store: FileStore;
  let lockPath: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "tc-lease-"));
    store = createFileStore({ root, lockTimeoutMs: 300 });
    lockPath = scopePaths(store.todoDir, TUI).lock;
  });

  afterEach(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("holds the lock through a burst and releases it when the event loop turns", async () => {
    await store.transact(TUI, () => ({ todos: list("a"), result: null }));
    const token = lockHolder(lockPath)?.token;
    await store.transact(TUI, () => ({ todos: list("b"), result: null }));
    expect(lockHolder(lockPath)?.token).toBe(token);
    await settle();
    expect(entryExists(lockPath)).toBe(false);
  });

  it("lets another store of the same process in once it yields", async () => {
    const other = createFileStore({ root });
    try {
      await store.transact(TUI, () => ({ todos: list("first"), result: null }));
      const second = other.transact(TUI, (s) => ({
        todos: list(`${s.todos.todos[0]?.content} then second`),
        result: null,
      }));
      await second;
      expect((await store.read(TUI)).todos).toEqual(list("first then second"));
    } finally {
      await other.close();
    }
  });

  it("releases at once on close", async () => {
    await store.transact(TUI, () => ({ todos: list("a"), result: null }));
    await store.close();
    expect(entryExists(lockPath)).toBe(false);
  });

  it("never writes under a lease another holder has taken over", async () => {
    await store.transact(TUI, () => ({ todos: list("mine"), result: null }));
    rmSync(lockPath);
    const intruder = tryLock(lockPath, newLockOwner(), { staleMs: 60_000 })!;
    await expect(
      store.transact(TUI, () => ({ todos: list("late"), result: null })),
    ).rejects.toThrow(/timed out/);
    expect((await store.read(TUI)).todos).toEqual(list("mine"));
    expect(lockHolder(lockPath)?.token).toBe(intruder.record.token);
    unlock(intruder);
  });
});

describe("LockLeases", () => {
  it("takes a fresh lock once a lease has reached its age limit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-lease-age-"));
    // Age limit 250 ms: long enough that a loaded machine cannot age the first lease between
    // two calls, short enough to wait out.
    const leases = new LockLeases(newLockOwner(), 1000);
    try {
      const path = join(dir, "x.lock");
      const first = leases.acquire(path, () => {})!;
      expect(leases.acquire(path, () => {})).toBe(first);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const renewed = leases.acquire(path, () => {})!;
      expect(renewed.record.token).not.toBe(first.record.token);
      leases.releaseAll();
      expect(entryExists(path)).toBe(false);
    } finally {
      leases.releaseAll();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("installs its exit handler again in each of the resident server's events", () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-lease-event-"));
    const leases = new LockLeases(newLockOwner(), 1000);
    try {
      for (let event = 0; event < 3; event++) {
        beginEvent();
        const before = process.listeners("exit");
        const path = join(dir, `${event}.lock`);
        expect(leases.acquire(path, () => {})).not.toBeNull();
        const added = process.listeners("exit").filter((l) => !before.includes(l));
        expect(added).toHaveLength(1);
        // As the server ends an event: the handlers it installed run, as at an exit, and go.
        for (const listener of added) {
          process.removeListener("exit", listener);
          (listener as (code: number) => void)(0);
        }
        expect(entryExists(path)).toBe(false);
      }
    } finally {
      leases.releaseAll();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
