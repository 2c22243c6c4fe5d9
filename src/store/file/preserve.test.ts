import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_PRESERVED_COPIES, preserveCopy, preservedCopies } from "./preserve.js";

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tc-preserve-"));
  path = join(dir, "scope.json");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes broken edit `n` and keeps a copy of it, the clock reading `at`. */
function brokenEdit(n: number, at: number): string {
  // A new file each time, as the store's renames make (copies are hard links).
  rmSync(path, { force: true });
  writeFileSync(path, `broken edit ${n}`);
  const copy = preserveCopy(path, at);
  if (copy === null) throw new Error("nothing was preserved");
  return copy;
}

function keptContents(): string[] {
  return preservedCopies(path).map((copy) => readFileSync(copy, "utf8"));
}

const NOW = 1_800_000_000_000;
const DAY = 86_400_000;

describe("preserved copies rank by creation, whatever the clock says", () => {
  it("keeps the newest copy after the clock jumps back a year", () => {
    for (let n = 1; n <= MAX_PRESERVED_COPIES; n++) brokenEdit(n, NOW + n);
    const newest = brokenEdit(6, NOW - 365 * DAY);
    expect(preservedCopies(path)).toContain(newest);
    expect(keptContents()).toEqual([2, 3, 4, 5, 6].map((n) => `broken edit ${n}`));
  });

  it("keeps creation order when the clock jumps forward and then back", () => {
    const clocks = [NOW, NOW + 10 * 365 * DAY, NOW - DAY, 0, NOW + 1, NOW - 2 * DAY, NOW];
    for (const [i, at] of clocks.entries()) brokenEdit(i + 1, at);
    expect(keptContents()).toEqual([3, 4, 5, 6, 7].map((n) => `broken edit ${n}`));
  });

  it("gives every copy its own name, even at one and the same millisecond", () => {
    const names = Array.from({ length: 4 }, (_, i) => basename(brokenEdit(i + 1, NOW)));
    expect(new Set(names).size).toBe(4);
    expect(names[0]).toMatch(/^scope\.json\.corrupt\.1-\d{13}$/);
  });

  it("ranks copies named by earlier versions before numbered ones", () => {
    writeFileSync(`${path}.corrupt`, "oldest, single name");
    writeFileSync(`${path}.corrupt-${NOW + DAY}`, "older, timed");
    brokenEdit(1, NOW - DAY);
    expect(keptContents()).toEqual(["oldest, single name", "older, timed", "broken edit 1"]);
    for (let n = 2; n <= MAX_PRESERVED_COPIES + 1; n++) brokenEdit(n, NOW - n);
    expect(keptContents()).toEqual([2, 3, 4, 5, 6].map((n) => `broken edit ${n}`));
  });

  it("leaves files that only look like copies alone", () => {
    writeFileSync(`${path}.corrupt.x-1`, "not a copy");
    writeFileSync(`${path}.corrupted`, "not a copy either");
    brokenEdit(1, NOW);
    expect(preservedCopies(path)).toHaveLength(1);
    expect(readFileSync(`${path}.corrupt.x-1`, "utf8")).toBe("not a copy");
  });
});
