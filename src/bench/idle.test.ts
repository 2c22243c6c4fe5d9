import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { benchIdleToNudge } from "./idle.js";

describe("benchIdleToNudge", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("times one delivered nudge per round, so every round goes through the whole decision", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-idle-bench-"));
    dirs.push(dir);
    const times = await benchIdleToNudge({ iterations: 4, dir });
    expect(times).toHaveLength(4);
    for (const ms of times) {
      expect(Number.isFinite(ms)).toBe(true);
      expect(ms).toBeGreaterThan(0);
    }
  });
});
