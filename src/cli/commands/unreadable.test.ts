import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileStore } from "../../store/file/index.js";
import { scopePaths } from "../../store/file/paths.js";
import { runCli } from "../test-support/run-cli.js";
import { seed, TUI } from "../test-support/seed.js";

/** What list, show, why and log say when a stored file cannot be read. */

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tc-cli-unreadable-"));
  const store = createFileStore({ root: dir });
  await seed(store);
  await store.close();
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function cli(...args: string[]) {
  return runCli(["--dir", dir, ...args]);
}

function paths() {
  return scopePaths(join(dir, "todo"), TUI);
}

describe("a corrupt list", () => {
  beforeEach(async () => {
    await writeFile(paths().todos, '{"todos": [ {"content": "my edit", "status": "pending"}, ]}');
  });

  it("list marks the scope unreadable, names the file and fails", async () => {
    const run = await cli("list");
    expect(run.code).toBe(1);
    const row = run.stdout.split("\n").find((l) => l.startsWith(`${TUI.key} `)) ?? "";
    expect(row).toContain("UNREADABLE todos");
    expect(run.stdout).toContain(`Unreadable todo list: ${paths().todos}`);
    const json = JSON.parse((await cli("list", "--json")).stdout) as {
      scopes: { key: string; problems: { document: string; location: string }[] }[];
    };
    const scope = json.scopes.find((s) => s.key === TUI.key);
    expect(scope?.problems).toMatchObject([{ document: "todos", location: paths().todos }]);
  });

  it("show, why and log name the file instead of calling the list empty", async () => {
    for (const command of ["show", "why", "log"]) {
      const run = await cli(command, TUI.key);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`Unreadable todo list: ${paths().todos}`);
      expect(run.stdout).toContain("not readable as JSON");
    }
  });

  it("after the next write, show names the copy kept of the broken file", async () => {
    const broken = await readFile(paths().todos, "utf8");
    const store = createFileStore({ root: dir });
    await store.transact(TUI, () => ({
      todos: { todos: [{ content: "fresh", status: "pending" }], phases: [], nextId: 1 },
      result: null,
    }));
    await store.close();
    const run = await cli("show", TUI.key);
    expect(run.code).toBe(0);
    const copy = /Copy kept of an earlier unreadable todo list: (\S+)/.exec(run.stdout)?.[1];
    expect(copy).toBeDefined();
    expect(await readFile(copy!, "utf8")).toBe(broken);
  });
});

describe("a state edited by hand", () => {
  it("show names it and why explains state-unreadable", async () => {
    const text = await readFile(paths().state, "utf8");
    await writeFile(paths().state, text.replace(/"autoTurns": \d+/, '"autoTurns": -1'));
    const show = await cli("show", TUI.key);
    expect(show.code).toBe(1);
    expect(show.stdout).toContain(`Unreadable continuation state: ${paths().state}`);
    expect(show.stdout).toContain("stored state unreadable: no nudges until the user speaks again");
    const why = await cli("why", TUI.key);
    expect(why.stdout).toContain("would NOT nudge now: state-unreadable");
    for (const command of ["why", "log"]) {
      const run = await cli(command, TUI.key);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`Unreadable continuation state: ${paths().state}`);
    }
    const json = JSON.parse((await cli("log", TUI.key, "--json")).stdout) as {
      problems: { document: string; location: string }[];
    };
    expect(json.problems).toMatchObject([{ document: "state", location: paths().state }]);
  });
});

describe("an unreadable log", () => {
  it("log says so, naming the file", async () => {
    const { truncate } = await import("node:fs/promises");
    await truncate(paths().log, 65 * 1024 * 1024);
    const run = await cli("log", TUI.key);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`Unreadable decision log: ${paths().log}`);
    expect(run.stdout).toContain("too big or not a file");
  });
});
