import { spawnSync } from "node:child_process";
import {
  closeSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { DecisionLogEntry, TodoList } from "../../core/types.js";
import { tempPathFor } from "./atomic.js";
import { createFileStore, type FileStore } from "./file-store.js";
import { previousGeneration } from "./log.js";
import { type ScopePaths, scopePaths } from "./paths.js";
import { MAX_PRESERVED_COPIES, preservedCopies } from "./preserve.js";

const TUI = resolveScope({ kind: "tui" })!;

let root: string;
let store: FileStore;
let paths: ScopePaths;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tc-file-integrity-"));
  store = createFileStore({ root, logLimit: 10 });
  paths = scopePaths(store.todoDir, TUI);
  mkdirSync(dirname(paths.state), { recursive: true });
});

afterEach(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

function list(...contents: string[]): TodoList {
  return {
    todos: contents.map((content) => ({ content, status: "pending" })),
    phases: [],
    nextId: 1,
  };
}

function entry(at: number): DecisionLogEntry {
  return {
    at,
    action: "skip",
    reason: "cooldown",
    episodeId: null,
    autoTurns: 0,
    tokens: 0,
    stagnation: 0,
    actionable: 1,
    blocked: 0,
    nudgeChars: null,
    nudgeTokens: null,
    trigger: "idle",
  };
}

describe("preserved copies", () => {
  it("gives each broken edit a copy of its own, keeping the newest few", async () => {
    const edits = Array.from({ length: MAX_PRESERVED_COPIES + 2 }, (_, i) => `{ broken edit ${i}`);
    for (const edit of edits) {
      writeFileSync(paths.todos, edit);
      await store.transact(TUI, () => ({ todos: list("fresh"), result: null }));
    }
    const copies = preservedCopies(paths.todos);
    expect(copies).toHaveLength(MAX_PRESERVED_COPIES);
    expect(copies.map((copy) => readFileSync(copy, "utf8"))).toEqual(
      edits.slice(-MAX_PRESERVED_COPIES),
    );
    expect((await store.read(TUI)).todos).toEqual(list("fresh"));
  });

  it("keeps the original bytes of a list whose read dropped an entry", async () => {
    const handEdit = JSON.stringify({
      version: 1,
      revision: 3,
      todos: [
        { content: "kept", status: "pending" },
        { content: "typo in the status", status: "done" },
      ],
      phases: [],
      nextId: 1,
    });
    writeFileSync(paths.todos, handEdit);
    const read = await store.read(TUI);
    expect(read.todos.todos.map((t) => t.content)).toEqual(["kept"]);
    await store.transact(TUI, (snap) => ({ todos: snap.todos, result: null }));
    const [copy, ...more] = preservedCopies(paths.todos);
    expect(more).toEqual([]);
    expect(readFileSync(copy!, "utf8")).toBe(handEdit);
    // The next write has nothing left to lose, so it keeps no further copy.
    await store.transact(TUI, (snap) => ({ todos: snap.todos, result: null }));
    expect(preservedCopies(paths.todos)).toHaveLength(1);
  });

  it("keeps a copy of a state document that does not match its checksum", async () => {
    await store.transact(TUI, (snap) => ({ state: snap.state, result: null }));
    const edited = readFileSync(paths.state, "utf8").replace('"stopped": false', '"stopped": 0');
    writeFileSync(paths.state, edited);
    const read = await store.read(TUI);
    expect(read.state.untrusted).toBe(true);
    await store.transact(TUI, (snap) => ({ state: snap.state, result: null }));
    expect(preservedCopies(paths.state).map((copy) => readFileSync(copy, "utf8"))).toEqual([
      edited,
    ]);
    // Written back as untrusted: the mark holds until a real user turn clears it.
    expect((await store.read(TUI)).state.untrusted).toBe(true);
  });
});

describe("the decision log", () => {
  it("sets an unreadable (oversized) log aside and starts a fresh one", async () => {
    const fd = openSync(paths.log, "w");
    ftruncateSync(fd, 65 * 1024 * 1024);
    closeSync(fd);
    await store.transact(TUI, () => ({ log: [entry(1)], result: null }));
    expect((await store.readLog(TUI)).map((e) => e.at)).toEqual([1]);
    const [copy] = preservedCopies(paths.log);
    expect(lstatSync(copy!).size).toBe(65 * 1024 * 1024);
    expect(lstatSync(paths.log).size).toBeLessThan(1024);
  });

  it("rotates, keeping one previous generation, and stays bounded", async () => {
    for (let i = 1; i <= 60; i++) {
      await store.transact(TUI, () => ({ log: [entry(i)], result: null }));
    }
    expect((await store.readLog(TUI)).map((e) => e.at)).toEqual(
      Array.from({ length: 10 }, (_, i) => 51 + i),
    );
    const previous = readFileSync(previousGeneration(paths.log), "utf8").trim().split("\n");
    expect(previous.length).toBeLessThanOrEqual(15);
    expect(readFileSync(paths.log, "utf8").trim().split("\n").length).toBeLessThanOrEqual(15);
    const logs = readdirSync(dirname(paths.log)).filter((n) => n.startsWith(basename(paths.log)));
    expect(logs.sort()).toEqual([basename(paths.log), basename(previousGeneration(paths.log))]);
  });
});

describe("orphaned temporaries", () => {
  it("are removed when the store next takes the scope's lock", async () => {
    const child = spawnSync(process.execPath, ["-e", ""]);
    const deadPid = child.pid!;
    const orphans = [paths.todos, paths.state, paths.log].map((file) =>
      tempPathFor(file, `${deadPid}-abcdef01`),
    );
    for (const orphan of orphans) writeFileSync(orphan, "half written");
    // Someone else's file that merely looks alike stays.
    const unrelated = `${paths.todos}.notes.tmp`;
    writeFileSync(unrelated, "mine");
    await store.transact(TUI, () => ({ todos: list("a"), result: null }));
    for (const orphan of orphans)
      expect(lstatSync(orphan, { throwIfNoEntry: false })).toBeUndefined();
    expect(readFileSync(unrelated, "utf8")).toBe("mine");
  });
});
