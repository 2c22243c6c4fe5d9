import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeSideEntries, staleSideEntries } from "./side-files.js";

const root = mkdtempSync(join(tmpdir(), "tc-side-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const old = new Date(Date.now() - 10 * 86_400_000);

describe("stale side files", () => {
  it("finds only the hook hosts' claim folders and notes older than the cutoff", () => {
    const store = join(root, "store");
    const claims = join(store, "codex-events", "s1");
    const young = join(store, "codex-events", "s2");
    mkdirSync(claims, { recursive: true });
    mkdirSync(young, { recursive: true });
    mkdirSync(join(store, "copilot-nudges"));
    const note = join(store, "copilot-nudges", "n.sha256");
    writeFileSync(note, "x");
    // Lookalikes that are not ours: the store's own folder, a file named like a side folder.
    mkdirSync(join(store, "todos", "x"), { recursive: true });
    writeFileSync(join(store, "pi-events"), "");
    for (const path of [claims, note, join(store, "todos", "x")]) utimesSync(path, old, old);
    expect(staleSideEntries(store, Date.now() - 86_400_000)).toEqual([claims, note]);
    expect(staleSideEntries(join(root, "missing"), Date.now())).toEqual([]);
  });

  it("removes a claim folder without following its claims (symlinks)", () => {
    const store = join(root, "store2");
    const claims = join(store, "codex-events", "s1");
    mkdirSync(claims, { recursive: true });
    const outside = join(root, "keep-me");
    writeFileSync(outside, "mine");
    symlinkSync(outside, join(claims, "Stop-abc"));
    expect(removeSideEntries([claims])).toEqual({ removed: 1, failed: [] });
    expect(existsSync(claims)).toBe(false);
    expect(existsSync(outside)).toBe(true);
  });
});
