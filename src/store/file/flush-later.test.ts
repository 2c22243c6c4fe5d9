import fs, { readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import { AFTER_ANSWER } from "../../core/resident.js";
import { resolveScope } from "../../core/scope/scope.js";
import { createFileStore, type FileStore } from "./file-store.js";
import { JOURNAL_LIMIT } from "./journal.js";
import { scopePaths } from "./paths.js";
import { entry, inServerEvent, list } from "./test-support/fixtures.js";

const SCOPE = resolveScope({ kind: "cron", jobId: "flush" })!;
const globals = globalThis as Record<symbol, unknown>;

/** Every path `fsyncSync` flushes while installed, files and folders alike, in order. */
const flushed: string[] = [];
const realFsync = fs.fsyncSync;

describe("a commit's folders, flushed after the answer in a server event", () => {
  let root: string;
  let store: FileStore;
  let folders: string[];

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "tc-flush-later-"));
    store = createFileStore({ root });
    await store.transact(SCOPE, () => ({ todos: list("old"), state: emptyState(), result: null }));
    const paths = scopePaths(store.todoDir, SCOPE);
    folders = [dirname(paths.todos), dirname(paths.state)];
    flushed.length = 0;
    fs.fsyncSync = (fd: number) => {
      flushed.push(readlinkSync(`/proc/self/fd/${fd}`));
      realFsync(fd);
    };
    syncBuiltinESMExports();
  });

  afterEach(async () => {
    fs.fsyncSync = realFsync;
    syncBuiltinESMExports();
    delete globals[AFTER_ANSWER];
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  const folderFlushes = () => flushed.filter((path) => folders.includes(path));

  it("flushes both documents' folders after the answer, and their temporaries before it", async () => {
    const event = inServerEvent();
    await store.transact(SCOPE, (s) => ({
      todos: list("new"),
      state: { ...s.state, lastUserTurnAt: 1 },
      result: null,
    }));
    // The answer would go now: the documents are in place, each temporary flushed, no folder.
    expect(folderFlushes()).toEqual([]);
    expect(flushed.filter((path) => path.endsWith(".tmp"))).toHaveLength(2);
    const snapshot = await store.read(SCOPE);
    expect(snapshot.todos.todos.map((t) => t.content)).toEqual(["new"]);
    expect(snapshot.state.lastUserTurnAt).toBe(1);
    event.drain();
    expect(folderFlushes().sort()).toEqual([...folders].sort());
  });

  it("flushes them in the commit outside a server event", async () => {
    await store.transact(SCOPE, (s) => ({
      todos: list("new"),
      state: { ...s.state, lastUserTurnAt: 1 },
      result: null,
    }));
    expect(folderFlushes().sort()).toEqual([...folders].sort());
  });

  it("flushes them in the commit when it flushes its log too", async () => {
    // The journal keeps JOURNAL_LIMIT entries; the append past them is flushed, and the state
    // written with it holds that append's entries alone.
    for (let i = 1; i <= JOURNAL_LIMIT; i++) {
      await store.transact(SCOPE, (s) => ({ state: s.state, log: [entry(i)], result: null }));
    }
    flushed.length = 0;
    const event = inServerEvent();
    await store.transact(SCOPE, (s) => ({
      state: s.state,
      log: [entry(JOURNAL_LIMIT + 1)],
      result: null,
    }));
    const log = scopePaths(store.todoDir, SCOPE).log;
    expect(flushed).toContain(log);
    expect(folderFlushes()).toEqual([dirname(scopePaths(store.todoDir, SCOPE).state)]);
    // What is left for the answer is the old state's second name, not a flush.
    event.drain();
    expect(folderFlushes()).toHaveLength(1);
  });

  it("flushes them in the commit when it rotates its log", async () => {
    const small = createFileStore({ root: join(root, "small"), logLimit: 2 });
    try {
      const paths = scopePaths(small.todoDir, SCOPE);
      let rotations = 0;
      for (let i = 1; i <= 12; i++) {
        const before = fs.statSync(paths.log, { throwIfNoEntry: false })?.ino;
        flushed.length = 0;
        const event = inServerEvent();
        await small.transact(SCOPE, (s) => ({
          todos: list(`round ${i}`),
          state: s.state,
          log: [entry(i)],
          result: null,
        }));
        const rotated = before !== undefined && fs.statSync(paths.log).ino !== before;
        if (rotated) rotations += 1;
        // A commit that put its log on disk (a rotation, or an append past the journal) has
        // its documents' folders on disk before the answer.
        const logOnDisk = rotated || flushed.includes(paths.log);
        expect(flushed.includes(dirname(paths.state))).toBe(logOnDisk);
        expect(flushed.includes(dirname(paths.todos))).toBe(logOnDisk);
        event.drain();
      }
      expect(rotations).toBeGreaterThan(0);
    } finally {
      await small.close();
    }
  });

  it("defers the folder of a commit whose log append the state's journal keeps", async () => {
    await store.transact(SCOPE, (s) => ({ state: s.state, log: [entry(1)], result: null }));
    flushed.length = 0;
    const event = inServerEvent();
    await store.transact(SCOPE, (s) => ({ state: s.state, log: [entry(2)], result: null }));
    expect(flushed.filter((path) => !path.endsWith(".tmp"))).toEqual([]);
    event.drain();
    expect(folderFlushes()).toEqual([dirname(scopePaths(store.todoDir, SCOPE).state)]);
  });

  it("flushes them in the commit when it creates or removes a stop marker", async () => {
    for (const stopped of [true, false]) {
      flushed.length = 0;
      const event = inServerEvent();
      await store.transact(SCOPE, (s) => ({ state: { ...s.state, stopped }, result: null }));
      expect(folderFlushes()).toEqual([dirname(scopePaths(store.todoDir, SCOPE).state)]);
      event.drain();
      expect(folderFlushes()).toHaveLength(1);
    }
  });

  it("flushes each commit's folders after its own answer, over many events", async () => {
    for (let i = 0; i < 50; i++) {
      flushed.length = 0;
      const event = inServerEvent();
      await store.transact(SCOPE, (s) => ({
        todos: list(`round ${i}`),
        state: { ...s.state, lastUserTurnAt: i },
        result: null,
      }));
      expect(folderFlushes()).toEqual([]);
      event.drain();
      expect(folderFlushes().sort()).toEqual([...folders].sort());
    }
    // Nothing is left open or held: no temporary, the store's folders as before.
    for (const folder of folders) {
      expect(fs.readdirSync(folder).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    }
  });
});
