import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DecisionLogEntry } from "../../core/types.js";
import { appendLogEntries, compactionThreshold, parseLogEntry, readLogEntries } from "./log.js";

function entry(at: number, extra: Partial<DecisionLogEntry> = {}): DecisionLogEntry {
  return {
    at,
    action: "inject",
    reason: null,
    episodeId: "e",
    autoTurns: 1,
    tokens: 5,
    stagnation: 0,
    actionable: 2,
    blocked: 1,
    nudgeChars: 100,
    nudgeTokens: 25,
    trigger: "idle",
    ...extra,
  };
}

describe("parseLogEntry", () => {
  it("keeps every field of a good entry, optional ones included", () => {
    const full = entry(1, { action: "delivery-failed", delivered: false, note: "timeout" });
    expect(parseLogEntry(JSON.parse(JSON.stringify(full)))).toEqual(full);
  });

  it.each([
    ["no action", { ...entry(1), action: undefined }],
    ["an unknown action", { ...entry(1), action: "maybe" }],
    ["a non-numeric counter", { ...entry(1), tokens: "5" }],
    ["an infinite time", { ...entry(1), at: Number.POSITIVE_INFINITY }],
    ["no trigger", { ...entry(1), trigger: undefined }],
    ["a wrong nudge size", { ...entry(1), nudgeChars: "long" }],
  ])("refuses an entry with %s", (_, raw) => {
    expect(parseLogEntry(raw)).toBeNull();
  });
});

describe("the log file", () => {
  let dir: string;
  let path: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tc-log-"));
    path = join(dir, "scope.log.jsonl");
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("appends until the threshold, then keeps only the newest limit", () => {
    const limit = 4;
    expect(compactionThreshold(limit)).toBe(6);
    for (let i = 1; i <= 6; i++) appendLogEntries(path, [entry(i)], limit, "t");
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(6);
    appendLogEntries(path, [entry(7)], limit, "t");
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(4);
    expect(readLogEntries(path, limit).map((e) => e.at)).toEqual([4, 5, 6, 7]);
    expect(readLogEntries(path, 2).map((e) => e.at)).toEqual([6, 7]);
    expect(readLogEntries(path, 0)).toEqual([]);
  });

  it("starts a new line after a torn one and skips untrusted lines", () => {
    writeFileSync(path, `${JSON.stringify(entry(1))}\nnot json\n{"at":2}\n{"at":3,"act`);
    appendLogEntries(path, [entry(4)], 10, "t");
    expect(readLogEntries(path, 10).map((e) => e.at)).toEqual([1, 4]);
  });

  it("reads a missing log as empty", () => {
    expect(readLogEntries(join(dir, "none.log.jsonl"), 10)).toEqual([]);
  });
});
