import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileStore } from "../../store/file/index.js";
import { runCli } from "../test-support/run-cli.js";
import { ABD, seed, TUI } from "../test-support/seed.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tc-cli-resume-add-"));
  const store = createFileStore({ root: dir });
  await seed(store);
  await store.close();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(["--dir", dir, ...args]);

async function stored(key: string) {
  const store = createFileStore({ root: dir });
  try {
    const scope = (await store.listScopes()).find((s) => s.key === key);
    if (scope === undefined) throw new Error(`no scope ${key}`);
    return { snap: await store.read(scope), log: await store.readLog(scope) };
  } finally {
    await store.close();
  }
}

describe("resume --add", () => {
  it("refuses a bad value by name and changes nothing", async () => {
    const before = await stored(TUI.key);
    const run = await cli("resume", "tui", "--add", "nudges=ten");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--add nudges=ten: "ten" is not a whole number');
    const after = await stored(TUI.key);
    expect(after.snap.stateRevision).toBe(before.snap.stateRevision);
    expect(after.log).toHaveLength(before.log.length);
  });

  it("raises the open episode, logs what was added, and why explains it", async () => {
    const run = await cli("resume", "tui", "--add", "nudges=10,tokens=200k,time=30m,cost=2.50");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /raised episode ep-\w+: \+10 nudges, \+200,000 tokens, \+30m, \+\$2\.50\./,
    );
    expect(run.stdout).toContain("Now allowed: 50 nudges (1 used)");
    const { snap, log } = await stored(TUI.key);
    expect(snap.state.episode?.raised).toEqual({
      nudges: 10,
      tokens: 200_000,
      timeMs: 1_800_000,
      costUsd: 2.5,
    });
    expect(log.at(-1)).toMatchObject({
      action: "raised",
      note: "+10 nudges, +200,000 tokens, +30m, +$2.50",
    });
    const why = await cli("why", "tui");
    expect(why.stdout).toContain(
      "limits raised by the user: +10 nudges, +200,000 tokens, +30m, +$2.50",
    );
    expect(why.stdout).toContain("Episode cost:");
    expect(why.stdout).toMatch(/limits raised by the user: \+10 nudges/);
    const json = JSON.parse((await cli("why", "tui", "--json")).stdout);
    expect(json.episode.raised.nudges).toBe(10);
    const show = await cli("show", "tui");
    expect(show.stdout).toMatch(/nudges +1 of 50/);
    expect(show.stdout).toMatch(/cost +/);
  });

  it("a second raise adds to the first", async () => {
    expect((await cli("resume", "tui", "--add", "nudges=5")).code).toBe(0);
    expect((await stored(TUI.key)).snap.state.episode?.raised?.nudges).toBe(15);
  });

  it("without an open episode there is nothing to raise (exit 1), and nothing changes", async () => {
    const before = await stored(ABD.key);
    const run = await cli("resume", ABD.key, "--add", "nudges=3");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("no episode is open");
    const after = await stored(ABD.key);
    expect(after.snap.state.stopped).toBe(true);
    expect(after.snap.stateRevision).toBe(before.snap.stateRevision);
  });
});
