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

  it("sorts 10,000 sessions' claim folders and notes by age, and removes only the old ones", () => {
    const store = join(root, "store-10k");
    const sessions = 10_000;
    const stale = new Set<string>();
    const inUse = new Set<string>();
    for (let i = 0; i < sessions; i++) {
      const id = `s${i.toString().padStart(5, "0")}`;
      const host = i % 2 === 0 ? "claude-code" : "gemini";
      const folder = join(store, `${host}-events`, id);
      mkdirSync(folder, { recursive: true });
      symlinkSync("claim", join(folder, "Stop-abc"));
      const entries = [folder];
      if (i % 5 === 0) {
        const note = join(store, "copilot-nudges", `${id}.sha256`);
        mkdirSync(join(store, "copilot-nudges"), { recursive: true });
        writeFileSync(note, "x");
        entries.push(note);
      }
      // Every third session ended ten days ago; the others are in use.
      for (const path of entries) {
        if (i % 3 === 0) {
          utimesSync(path, old, old);
          stale.add(path);
        } else inUse.add(path);
      }
    }
    const found = staleSideEntries(store, Date.now() - 86_400_000);
    expect(found.length).toBe(stale.size);
    expect(new Set(found)).toEqual(stale);
    expect(removeSideEntries(found)).toEqual({ removed: stale.size, failed: [] });
    expect(staleSideEntries(store, Date.now() - 86_400_000)).toEqual([]);
    // What is in use is all still there (6,666 sessions' folders and 1,333 notes), and only that.
    expect(new Set(staleSideEntries(store, Date.now() + 86_400_000))).toEqual(inUse);
  }, 60_000);
});
