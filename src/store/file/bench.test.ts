import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { benchFileStore } from "./bench.js";

describe("benchFileStore", () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tc-bench-"));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("returns one latency per iteration for each variant and cleans up", async () => {
    const result = await benchFileStore({ iterations: 6, dir, warmup: 2 });
    for (const series of [result.ours, result.raw]) {
      expect(series).toHaveLength(6);
      for (const micros of series) expect(Number.isFinite(micros) && micros > 0).toBe(true);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("refuses a non-positive iteration count", async () => {
    await expect(benchFileStore({ iterations: 0, dir })).rejects.toThrow(/iterations/);
  });
});
