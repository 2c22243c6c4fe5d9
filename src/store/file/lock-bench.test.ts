import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileStore } from "./file-store.js";
import { benchLockWait, HOT_SCOPE } from "./lock-bench.js";
import { scopePaths } from "./paths.js";
import { transpileForChild } from "./test-support/transpile.js";

let dir: string;
let worker: { file: string; dir: string };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tc-lock-bench-"));
  worker = transpileForChild(join(import.meta.dirname, "lock-bench-worker.ts"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(worker.dir, { recursive: true, force: true });
});

describe("the lock is fair", () => {
  it("a process looping transactions does not keep another's single one waiting", async () => {
    const root = mkdtempSync(join(dir, "fair-"));
    const looping = new Promise<void>((resolve, reject) => {
      execFile(process.execPath, [worker.file, root, "3000"], (error) =>
        error ? reject(error) : resolve(),
      );
    });
    const store = createFileStore({ root });
    const listPath = scopePaths(store.todoDir, HOT_SCOPE).todos;
    while (!existsSync(listPath)) await sleep(5);
    await sleep(200);
    // The loop counts its transactions in the list's nextId: how many of them went before ours.
    const asked = (await store.read(HOT_SCOPE)).todos.nextId;
    const ours = await store.transact(HOT_SCOPE, (snap) => ({ result: snap.todos.nextId }));
    await store.close();
    await looping;
    const after = createFileStore({ root });
    const last = (await after.read(HOT_SCOPE)).todos.nextId;
    await after.close();
    rmSync(root, { recursive: true, force: true });
    // Before turns were ordered, every one of the loop's transactions went first (ours came
    // after the whole loop, about 2,900 of them); now ours comes after the few (3 or 4 here)
    // that ran while it announced itself.
    expect(ours - asked).toBeLessThan(20);
    // The loop ran before, during and long after our wait: the lock was contended throughout.
    expect(asked).toBeGreaterThan(0);
    expect(last - ours).toBeGreaterThan(50);
  }, 30_000);
});

describe("benchLockWait", () => {
  it("runs every process, collects one wait per transaction and cleans up", async () => {
    const result = await benchLockWait({
      processes: 3,
      durationMs: 300,
      dir,
      workerFile: worker.file,
    });
    expect(result.perProcess).toHaveLength(3);
    // No process starves: each one got its turns.
    for (const count of result.perProcess) expect(count).toBeGreaterThan(0);
    expect(result.waits).toHaveLength(result.perProcess.reduce((a, b) => a + b, 0));
    for (const wait of result.waits) expect(Number.isFinite(wait) && wait >= 0).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  it("refuses a non-positive process count", async () => {
    await expect(benchLockWait({ processes: 0, durationMs: 10, dir })).rejects.toThrow(/processes/);
  });
});
