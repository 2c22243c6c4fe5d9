import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { DecisionLogEntry } from "../../core/types.js";
import { readLogEntries } from "./log.js";
import { readLogTail } from "./log-tail.js";

const dir = mkdtempSync(join(tmpdir(), "tc-log-tail-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function entry(at: number): DecisionLogEntry {
  return {
    at,
    action: "skip",
    reason: "stagnation",
    episodeId: "ep-é",
    autoTurns: 1,
    tokens: 10,
    stagnation: 0,
    actionable: 1,
    blocked: 0,
    nudgeChars: null,
    nudgeTokens: null,
    trigger: "idle",
  };
}

describe("readLogTail", () => {
  const line = fc.oneof(
    fc.integer({ min: 1, max: 1e6 }).map((at) => JSON.stringify(entry(at))),
    fc.constantFrom("", "  ", "{", "not json", '{"action":"skip"}', "\r", "[]"),
    fc.string({ unit: "grapheme" }),
  );

  it("gives the newest entries reading the whole log gives, whatever window it starts with", () => {
    const path = join(dir, "p.log.jsonl");
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 40 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 45 }),
        // Windows from one byte up: lines (and multi-byte characters) get cut at every place.
        fc.integer({ min: 1, max: 600 }),
        (lines, closed, limit, window) => {
          writeFileSync(path, lines.join("\n") + (closed ? "\n" : ""));
          expect(readLogTail(path, limit, window)).toEqual(readLogEntries(path, limit));
        },
      ),
    );
  });

  it("finds entries far behind a long run of lines it cannot trust", () => {
    const path = join(dir, "junk.log.jsonl");
    const junk = Array.from({ length: 5000 }, () => "x".repeat(40)).join("\n");
    writeFileSync(path, `${JSON.stringify(entry(1))}\n${JSON.stringify(entry(2))}\n${junk}\n`);
    expect(readLogTail(path, 1)).toEqual([entry(2)]);
    expect(readLogTail(path, 5)).toEqual([entry(1), entry(2)]);
  });

  it("says null for no log and unusable for a folder, and refuses a symlink", () => {
    expect(readLogTail(join(dir, "none.log.jsonl"), 1)).toBeNull();
    const folder = join(dir, "folder.log.jsonl");
    mkdirSync(folder);
    expect(readLogTail(folder, 1)).toBe("unusable");
    const link = join(dir, "link.log.jsonl");
    writeFileSync(join(dir, "target"), `${JSON.stringify(entry(3))}\n`);
    symlinkSync(join(dir, "target"), link);
    expect(() => readLogTail(link, 1)).toThrow();
  });

  it.skipIf(process.platform === "win32")(
    "says unusable for a pipe or a device, however a first read from the start goes",
    () => {
      const fifo = join(dir, "fifo.log.jsonl");
      execFileSync("mkfifo", [fifo]);
      expect(readLogTail(fifo, 1)).toBe("unusable");
      expect(readLogTail("/dev/null", 1)).toBe("unusable");
      expect(readLogTail("/dev/zero", 1)).toBe("unusable");
    },
  );
});
