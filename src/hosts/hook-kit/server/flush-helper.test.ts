import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FlushBeside } from "../../../core/resident.js";
import { startFlushHelper } from "./flush-helper.js";

let dir: string;
const stops: (() => Promise<number>)[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tc-flush-helper-"));
});

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  rmSync(dir, { recursive: true, force: true });
});

function started(options?: Parameters<typeof startFlushHelper>[0]) {
  const helper = startFlushHelper(options);
  stops.push(helper.stop);
  return helper;
}

/** A file with some bytes, open for writing. */
function written(name: string): number {
  const fd = openSync(join(dir, name), "w");
  writeSync(fd, "content");
  return fd;
}

/** The helper's wait for `fd`, once the helper has started (it hands nothing over before). */
async function handOver(flushBeside: FlushBeside, fd: number): Promise<() => void> {
  for (let waited = 0; waited < 5_000; waited += 5) {
    const wait = flushBeside(fd);
    if (wait !== null) return wait;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("the helper never started");
}

describe("the resident server's flush helper", () => {
  it("flushes on its own thread, file after file", async () => {
    const { flushBeside } = started();
    for (let i = 0; i < 20; i++) {
      const fd = written(`f${i}`);
      const wait = await handOver(flushBeside, fd);
      expect(() => wait()).not.toThrow();
      closeSync(fd);
    }
  });

  it("reports the flush's own error", async () => {
    const { flushBeside } = started();
    // A descriptor no process has open (far above the table's size): the helper's fsync is
    // refused, and the wait says so.
    const fd = 999_999;
    const wait = await handOver(flushBeside, fd);
    expect(() => wait()).toThrow(expect.objectContaining({ code: "EBADF", syscall: "fsync" }));
    // And it is idle again.
    const next = written("next");
    const again = flushBeside(next);
    expect(again).not.toBeNull();
    again?.();
    closeSync(next);
  });

  it("sleeps once its flush is done, however long the caller takes to collect it", async () => {
    const { flushBeside } = started();
    const fd = written("idle");
    const wait = await handOver(flushBeside, fd);
    // Both threads idle for 300 ms: the flush is done early, and nothing should spin meanwhile.
    const before = process.cpuUsage();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
    const used = process.cpuUsage(before);
    expect((used.user + used.system) / 1000).toBeLessThan(100);
    wait();
    closeSync(fd);
  });

  it("hands nothing over while another flush is asked for", async () => {
    const { flushBeside } = started();
    const fd = written("one");
    const wait = await handOver(flushBeside, fd);
    expect(flushBeside(fd)).toBeNull();
    wait();
    closeSync(fd);
  });

  it("hands nothing over before it has started", () => {
    // A helper that never says it waits.
    const { flushBeside } = started({ source: "setInterval(() => {}, 1_000_000);" });
    const fd = written("early");
    expect(flushBeside(fd)).toBeNull();
    closeSync(fd);
  });

  it("flushes the file itself past the wait, and hands over no more, when the helper hangs", async () => {
    const hung = `
      const shared = new Int32Array(require("node:worker_threads").workerData);
      Atomics.store(shared, 3, 1);
      setInterval(() => {}, 1_000_000);
    `;
    const { flushBeside } = started({ source: hung, waitMs: 50 });
    const fd = written("hung");
    const wait = await handOver(flushBeside, fd);
    const start = Date.now();
    expect(() => wait()).not.toThrow();
    expect(Date.now() - start).toBeGreaterThanOrEqual(45);
    expect(flushBeside(fd)).toBeNull();
    closeSync(fd);
  });

  it("hands over no more once its thread has ended", async () => {
    const gone = `
      const shared = new Int32Array(require("node:worker_threads").workerData);
      Atomics.store(shared, 3, 1);
    `;
    const { flushBeside, ended } = started({ source: gone });
    await ended;
    const fd = written("gone");
    expect(flushBeside(fd)).toBeNull();
    closeSync(fd);
  });
});
