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
    const start = Date.now();
    await store.transact(HOT_SCOPE, () => ({ result: null }));
    const waited = Date.now() - start;
    await store.close();
    await looping;
    rmSync(root, { recursive: true, force: true });
    // Before turns were ordered, this waited for the whole loop (about 2.8 s).
    expect(waited).toBeLessThan(1_500);
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
