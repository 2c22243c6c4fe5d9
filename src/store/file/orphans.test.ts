import { spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeOrphanedTemps, SWEEP_INTERVAL_MS, SWEEP_MARKER } from "./orphans.js";

let dir: string;
const deadPid = spawnSync(process.execPath, ["-e", ""]).pid!;
const exists = (path: string) => lstatSync(path, { throwIfNoEntry: false }) !== undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tc-orphans-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A temporary of `file` by `pid`, last written `ageMs` before `now`. */
function temp(file: string, pid: number, now: number, ageMs: number): string {
  const path = join(dir, `${file}.${pid}-abcdef01.tmp`);
  writeFileSync(path, "half written");
  utimesSync(path, (now - ageMs) / 1000, (now - ageMs) / 1000);
  return path;
}

describe("removeOrphanedTemps", () => {
  let mine: string[];
  beforeEach(() => {
    mine = ["a.json", "a.log.jsonl"].map((name) => join(dir, name));
  });

  it("removes its scope's dead writers' temporaries, and other scopes' only once stale", () => {
    const now = Date.now();
    const deadMine = temp("a.json", deadPid, now, 0);
    const liveMine = temp("a.log.jsonl", process.pid, now, 0);
    const staleOther = temp("b.json", process.pid, now, 60_000);
    const freshOther = temp("b.json", deadPid, now, 0);
    const notADocument = temp("notes.txt", deadPid, now, 60_000);
    expect(removeOrphanedTemps(mine, "own-tag", 10_000, now)).toBe(2);
    expect([deadMine, staleOther].map(exists)).toEqual([false, false]);
    expect([liveMine, freshOther, notADocument].map(exists)).toEqual([true, true, true]);
  });

  it("sweeps a folder at most once per interval, whichever process asks", () => {
    const now = Date.now();
    expect(removeOrphanedTemps(mine, "own-tag", 10_000, now)).toBe(0);
    expect(exists(join(dir, SWEEP_MARKER))).toBe(true);
    const orphan = temp("a.json", deadPid, now, 0);
    expect(removeOrphanedTemps(mine, "own-tag", 10_000, now + 1_000)).toBe(0);
    expect(exists(orphan)).toBe(true);
    expect(removeOrphanedTemps(mine, "own-tag", 10_000, now + SWEEP_INTERVAL_MS + 1)).toBe(1);
    expect(exists(orphan)).toBe(false);
  });

  it("sweeps again when the marker's time is in the future (a clock set back)", () => {
    const now = Date.now();
    removeOrphanedTemps(mine, "own-tag", 10_000, now);
    const orphan = temp("a.json", deadPid, now, 0);
    expect(removeOrphanedTemps(mine, "own-tag", 10_000, now - 60_000)).toBe(1);
    expect(exists(orphan)).toBe(false);
  });

  it.skipIf(process.platform === "win32")(
    "never writes through a symlink at the marker's name",
    () => {
      const outside = join(dir, "outside");
      mkdirSync(outside);
      const target = join(outside, "target");
      writeFileSync(target, "keep");
      symlinkSync(target, join(dir, SWEEP_MARKER));
      const orphan = temp("a.json", deadPid, Date.now(), 0);
      expect(removeOrphanedTemps(mine, "own-tag", 10_000)).toBe(1);
      expect(exists(orphan)).toBe(false);
      expect(readFileSync(target, "utf8")).toBe("keep");
    },
  );
});
