import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContinuationState, TodoList } from "../../core/types.js";
import { createFileStore } from "../../store/file/index.js";
import { runCli } from "../test-support/run-cli.js";
import { seed } from "../test-support/seed.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tc-cli-clear-"));
  const store = createFileStore({ root: dir });
  await seed(store);
  await store.close();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(["--dir", dir, ...args]);

describe("clear", () => {
  it("empties the list, keeps ids from being reused, and tells the model", async () => {
    const run = await cli("clear", "tui");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Cleared tui (shared): removed 4 items.\n");
    const view = JSON.parse((await cli("show", "tui", "--json")).stdout) as {
      todos: TodoList;
      state: ContinuationState;
    };
    expect(view.todos).toEqual({ todos: [], phases: [], nextId: 5 });
    expect(view.state.reminders.at(-1)?.kind).toBe("user-edit");
    expect(view.state.reminders.at(-1)?.text).toContain("cleared your todo list");
    expect((await cli("log", "tui", "--json")).stdout).toContain('"action": "inject"');
  });

  it("says so when the list was already empty", async () => {
    const run = await cli("clear", "tui", "--json");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ removed: 0 });
  });

  it("exits 1 for an unknown scope and changes nothing", async () => {
    const run = await cli("clear", "nope-nothing");
    expect(run.code).toBe(1);
    expect((await cli("show", "nightly", "--json")).stdout).toContain("Rotate the logs");
  });
});
