import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AFTER_ANSWER } from "../core/resident.js";
import { benchServerCommit } from "./server-commit.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("benchServerCommit", () => {
  it.each([1, 2] as const)("times %i-document commits both ways and leaves nothing", async (n) => {
    const dir = mkdtempSync(join(tmpdir(), "tc-server-commit-bench-"));
    dirs.push(dir);
    const out = await benchServerCommit({ dir, iterations: 3, documents: n, pauseMs: 0 });
    expect(out.inServer).toHaveLength(3);
    expect(out.afterAnswer).toHaveLength(3);
    expect(out.inPlace).toHaveLength(3);
    for (const micros of [...out.inServer, ...out.afterAnswer, ...out.inPlace]) {
      expect(micros).toBeGreaterThan(0);
    }
    expect(readdirSync(dir)).toEqual([]);
    // No event's queue is left open for the code that runs next.
    expect((globalThis as Record<symbol, unknown>)[AFTER_ANSWER]).toBeUndefined();
  });
});
