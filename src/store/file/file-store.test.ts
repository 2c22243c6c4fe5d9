import { spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import { resolveScope } from "../../core/scope/scope.js";
import { emptyList } from "../../core/todo/model.js";
import type { Scope, TodoList } from "../../core/types.js";
import { runStoreContract } from "../contract.js";
import { tempPathFor } from "./atomic.js";
import { createFileStore, type FileStore, type FileStoreOptions } from "./file-store.js";
import { JOURNAL_LIMIT } from "./journal.js";
import { logFlushProbe } from "./log.js";
import { SWEEP_MARKER } from "./orphans.js";
import { type ScopePaths, scopePaths } from "./paths.js";
import { preservedCopies } from "./preserve.js";
import { entry, list } from "./test-support/fixtures.js";

/** Lets the event loop turn, so a store releases the lock it keeps between transactions. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Whether anything, a dangling symlink included, exists at `path`. */
function entryExists(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

runStoreContract("FileStore", async () => {
  const root = await mkdtemp(join(tmpdir(), "tc-file-store-"));
  const store = createFileStore({ root });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
});

const TUI = resolveScope({ kind: "tui" })!;
const CHANNEL = resolveScope({
  kind: "channel",
  adapter: "slack",
  workspace: null,
  chat: "C1",
  thread: "17",
})!;
const CRON = resolveScope({ kind: "cron", jobId: "nightly" })!;

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  return child.pid!;
}

describe("FileStore on disk", () => {
  let root: string;
  let store: FileStore;

  function open(options: Omit<FileStoreOptions, "root"> = {}): FileStore {
    return createFileStore({ root, ...options });
  }

  function pathsOf(scope: Scope): ScopePaths {
    return scopePaths(store.todoDir, scope);
  }

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "tc-file-disk-"));
    store = open();
  });

  afterEach(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  it("keeps plain, pretty-printed, versioned documents at the documented paths", async () => {
    await store.transact(CHANNEL, () => ({
      todos: list("write docs"),
      state: { ...emptyState(), stopped: true },
      log: [entry(1)],
      result: null,
    }));
    await settle();
    const todoDir = join(root, "todo");
    const key = "channel/sslack.n.s_c1.s17";
    expect(CHANNEL.key).toBe(key);
    const todosText = readFileSync(join(todoDir, `${key}.json`), "utf8");
    expect(todosText).toBe(
      `${JSON.stringify({ version: 1, revision: 1, ...list("write docs") }, null, 2)}\n`,
    );
    const state = JSON.parse(readFileSync(join(todoDir, ".state", `${key}.json`), "utf8"));
    expect(state).toMatchObject({ version: 1, revision: 1, stopped: true });
    const log = readFileSync(join(todoDir, ".state", `${key}.log.jsonl`), "utf8");
    expect(
      log
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([{ seq: 1, ...entry(1) }]);
    expect(state.logJournal).toEqual({ seq: 1, entries: [entry(1)] });
    // Nothing transient is left behind: the documents, and each folder's sweep marker.
    expect(readdirSync(join(todoDir, "channel")).sort()).toEqual([
      SWEEP_MARKER,
      "sslack.n.s_c1.s17.json",
    ]);
    expect(readdirSync(join(todoDir, ".state", "channel")).sort()).toEqual([
      SWEEP_MARKER,
      "sslack.n.s_c1.s17.json",
      "sslack.n.s_c1.s17.log.jsonl",
      "sslack.n.s_c1.s17.stop",
    ]);
  });

  it("flushes the log once in JOURNAL_LIMIT appends, and loses no entry when the disk lost the rest", async () => {
    const flushedAt: number[] = [];
    logFlushProbe.flushed = (path) => {
      if (path === pathsOf(TUI).log) flushedAt.push(statSync(path).size);
    };
    try {
      const writes = 50;
      for (let i = 1; i <= writes; i++) {
        await store.transact(TUI, (s) => ({ state: s.state, log: [entry(i)], result: null }));
        const { logJournal } = JSON.parse(readFileSync(pathsOf(TUI).state, "utf8"));
        // The journal reaches back to the last flush: every entry the disk may lack is in it.
        expect(logJournal.seq).toBe(i);
        expect(logJournal.entries.length).toBeLessThanOrEqual(JOURNAL_LIMIT);
        const linesOnDisk = readFileSync(pathsOf(TUI).log, "utf8").slice(0, flushedAt.at(-1));
        const flushed = linesOnDisk.split("\n").filter((l) => l !== "").length;
        expect(logJournal.seq - logJournal.entries.length).toBeLessThanOrEqual(flushed);
      }
      expect(flushedAt.length).toBeGreaterThanOrEqual(Math.floor(writes / JOURNAL_LIMIT));
      expect(flushedAt.length).toBeLessThan(writes / 2);
      // The machine went down: the log keeps only what reached the disk.
      truncateSync(pathsOf(TUI).log, flushedAt.at(-1));
      const ats = (await store.readLog(TUI)).map((e) => e.at);
      expect(ats).toEqual(Array.from({ length: writes }, (_, i) => i + 1));
      // The next transaction writes back what the file lost, once each.
      await store.transact(TUI, (s) => ({
        state: s.state,
        log: [entry(writes + 1)],
        result: null,
      }));
      const seqs = readFileSync(pathsOf(TUI).log, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (JSON.parse(l) as { seq: number }).seq);
      expect(seqs).toEqual(Array.from({ length: writes + 1 }, (_, i) => i + 1));
    } finally {
      logFlushProbe.flushed = null;
    }
  });

  it("flushes an append at once when no state keeps it", async () => {
    let flushes = 0;
    logFlushProbe.flushed = () => {
      flushes += 1;
    };
    try {
      await store.transact(TUI, (s) => ({ state: s.state, log: [entry(1)], result: null }));
      const before = flushes;
      await store.transact(TUI, () => ({ log: [entry(2)], result: null }));
      expect(flushes).toBe(before + 1);
    } finally {
      logFlushProbe.flushed = null;
    }
  });

  it("reads hand-written files without version or revision, and counts on from 0", async () => {
    mkdirSync(join(root, "todo"), { recursive: true });
    writeFileSync(pathsOf(TUI).todos, '{"todos":[{"content":"by hand","status":"pending"}]}');
    const snapshot = await store.read(TUI);
    expect(snapshot.todos).toEqual(list("by hand"));
    expect(snapshot.todosRevision).toBe(0);
    await store.transact(TUI, (s) => ({ todos: s.todos, result: null }));
    expect((await store.read(TUI)).todosRevision).toBe(1);
  });

  it("drops malformed entries of a list and keeps the rest", async () => {
    mkdirSync(join(root, "todo"), { recursive: true });
    const raw = {
      revision: 4,
      todos: [
        { content: "kept", status: "pending" },
        { content: 5, status: "pending" },
        { content: "bad status", status: "someday" },
        { content: "blocked without reason", status: "blocked" },
        "not an object",
        { content: "also kept", status: "completed" },
      ],
    };
    writeFileSync(pathsOf(TUI).todos, JSON.stringify(raw));
    const snapshot = await store.read(TUI);
    expect(snapshot.todos.todos.map((t) => t.content)).toEqual(["kept", "also kept"]);
    expect(snapshot.todosRevision).toBe(4);
  });

  it.each([
    ["empty", ""],
    ["whitespace", "  \n"],
    ["truncated", '{"todos":[{"content":"half'],
    ["not JSON", "\u0000\u0001garbage"],
    ["an array", "[1,2,3]"],
    ["a string", '"todos"'],
  ])("reads a %s file as empty (a state as untrusted) and never throws", async (_, content) => {
    mkdirSync(join(root, "todo", ".state"), { recursive: true });
    writeFileSync(pathsOf(TUI).todos, content);
    writeFileSync(pathsOf(TUI).state, content);
    writeFileSync(pathsOf(TUI).log, content);
    const snapshot = await store.read(TUI);
    expect(snapshot).toEqual({
      todos: emptyList(),
      todosRevision: 0,
      state: { ...emptyState(), untrusted: true },
      stateRevision: 0,
    });
    expect(await store.readLog(TUI)).toEqual([]);
  });

  it("keeps an unreadable file aside instead of overwriting it", async () => {
    mkdirSync(join(root, "todo"), { recursive: true });
    const broken = '{"todos": [ {"content": "my edit", "status": "pending"}, ]}';
    writeFileSync(pathsOf(TUI).todos, broken);
    await store.transact(TUI, () => ({ todos: list("fresh"), result: null }));
    const [copy, ...more] = preservedCopies(pathsOf(TUI).todos);
    expect(more).toEqual([]);
    expect(readFileSync(copy!, "utf8")).toBe(broken);
    expect((await store.read(TUI)).todos).toEqual(list("fresh"));
    expect(await store.listScopes()).toEqual([TUI]);
  });

  it("refuses invalid documents from a transaction, naming the field, and keeps stored data", async () => {
    await store.transact(TUI, () => ({ todos: list("keep"), state: emptyState(), result: null }));
    const badTodo = {
      todos: [
        { content: "ok", status: "pending" },
        { content: "", status: "pending" },
      ],
      phases: [],
      nextId: 1,
    };
    await expect(
      store.transact(TUI, () => ({ todos: badTodo as TodoList, result: null })),
    ).rejects.toThrow(/invalid todo at todos\[1\]/);
    const badState = { ...emptyState(), episode: { id: "e", autoTurns: Number.NaN } };
    await expect(
      store.transact(TUI, () => ({ state: badState as never, result: null })),
    ).rejects.toThrow(/invalid state\.episode/);
    await expect(
      store.transact(TUI, () => ({
        todos: list("x"),
        log: [{ at: "now" } as never],
        result: null,
      })),
    ).rejects.toThrow(/invalid decision log entry at log\[0\]/);
    await expect(store.transact(TUI, (async () => ({ result: null })) as never)).rejects.toThrow(
      /must be synchronous/,
    );
    const snapshot = await store.read(TUI);
    expect(snapshot.todos).toEqual(list("keep"));
    expect([snapshot.todosRevision, snapshot.stateRevision]).toEqual([1, 1]);
    expect(await store.readLog(TUI)).toEqual([]);
  });

  it("refuses to follow a symlinked folder out of the todo folder", async () => {
    const outside = join(root, "outside");
    mkdirSync(outside);
    mkdirSync(join(root, "todo"), { recursive: true });
    symlinkSync(outside, join(root, "todo", "cron"));
    await expect(store.transact(CRON, () => ({ todos: list("x"), result: null }))).rejects.toThrow(
      /refusing to follow the symlink/,
    );
    await expect(store.read(CRON)).rejects.toThrow(/symlink/);
    expect(readdirSync(outside)).toEqual([]);
    expect(await store.listScopes()).toEqual([]);
  });

  it("refuses to follow a symlinked state folder", async () => {
    const outside = join(root, "outside");
    mkdirSync(outside);
    mkdirSync(join(root, "todo"), { recursive: true });
    symlinkSync(outside, join(root, "todo", ".state"));
    await expect(
      store.transact(TUI, () => ({ state: emptyState(), result: null })),
    ).rejects.toThrow(/symlink/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("refuses to read or replace a document that is a symlink", async () => {
    const secret = join(root, "secret.json");
    writeFileSync(secret, '{"todos":[{"content":"secret","status":"pending"}]}');
    mkdirSync(join(root, "todo"), { recursive: true });
    symlinkSync(secret, pathsOf(TUI).todos);
    await expect(store.read(TUI)).rejects.toThrow(/refusing to follow the symlink/);
    await expect(store.transact(TUI, () => ({ todos: list("x"), result: null }))).rejects.toThrow(
      /symlink/,
    );
    expect(readFileSync(secret, "utf8")).toContain("secret");
  });

  it("lists only files named by valid scope keys", async () => {
    await store.transact(CRON, () => ({ todos: list("a"), result: null }));
    await store.transact(TUI, () => ({ log: [entry(1)], result: null }));
    const todoDir = join(root, "todo");
    mkdirSync(join(todoDir, "session"));
    for (const junk of [
      "cron/snightly.json.1-ab.tmp",
      "cron/snightly.json.corrupt",
      "cron/_bad.json",
      "cron/sx.txt",
      "cron/n.json",
      "notes.json",
      "TUI.json",
      ".state/cron/snightly.lock",
      ".state/cron/sother.json.9-ff.tmp",
      "session/sonly-one.json",
    ]) {
      writeFileSync(join(todoDir, junk), "{}", { flag: "w" });
    }
    mkdirSync(join(todoDir, "cron", "sdir.json"));
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "sleaked.json"), "{}");
    symlinkSync(outside, join(todoDir, "channel"));
    expect(await store.listScopes()).toEqual([CRON, TUI]);
  });

  it("deletes the list, the state, the log, the stop marker and any copy kept aside", async () => {
    await store.transact(CRON, () => ({
      todos: list("a"),
      state: emptyState(),
      log: [entry(1)],
      result: null,
    }));
    const paths = pathsOf(CRON);
    writeFileSync(`${paths.todos}.corrupt`, "old");
    writeFileSync(`${paths.state}.corrupt-1700000000000`, "older");
    writeFileSync(`${paths.log}.1`, "previous generation");
    writeFileSync(paths.stop, "");
    writeFileSync(`${paths.lock}.wait`, "1 x");
    await store.deleteScope(CRON);
    await settle();
    for (const file of [
      paths.todos,
      paths.state,
      paths.log,
      paths.lock,
      paths.stop,
      `${paths.todos}.corrupt`,
      `${paths.state}.corrupt-1700000000000`,
      `${paths.log}.1`,
      `${paths.lock}.wait`,
    ]) {
      expect(entryExists(file)).toBe(false);
    }
  });

  it("trims the log file and skips a line torn by a crash", async () => {
    store = open({ logLimit: 10 });
    for (let i = 1; i <= 40; i++) {
      await store.transact(TUI, () => ({ log: [entry(i)], result: null }));
      const lines = readFileSync(pathsOf(TUI).log, "utf8").trim().split("\n");
      expect(lines.length).toBeLessThanOrEqual(15);
    }
    expect((await store.readLog(TUI)).map((e) => e.at)).toEqual(
      Array.from({ length: 10 }, (_, i) => 31 + i),
    );
    writeFileSync(pathsOf(TUI).log, '{"at":41,"action":"sk', { flag: "a" });
    await store.transact(TUI, () => ({ log: [entry(42)], result: null }));
    const log = await store.readLog(TUI);
    expect(log.at(-1)).toEqual(entry(42));
    expect(log.map((e) => e.at)).not.toContain(41);
  });

  it("validates its options and readLog's limit", async () => {
    expect(() => open({ logLimit: 0 })).toThrow(/logLimit must be a positive integer/);
    expect(() => open({ lockStaleMs: -1 })).toThrow(/lockStaleMs/);
    await expect(store.readLog(TUI, -1)).rejects.toThrow(/limit must be a non-negative integer/);
    await expect(store.readLog(TUI, 1.5)).rejects.toThrow(/limit/);
  });

  it("carries on when its folder is removed while it is open", async () => {
    await store.transact(CHANNEL, () => ({ todos: list("a"), result: null }));
    await rm(join(root, "todo"), { recursive: true, force: true });
    await store.transact(CHANNEL, () => ({ todos: list("b"), result: null }));
    expect((await store.read(CHANNEL)).todos).toEqual(list("b"));
  });

  describe("locks left behind", () => {
    function plantLock(scope: Scope, record: object | string, ageMs = 0): void {
      const paths = pathsOf(scope);
      mkdirSync(join(root, "todo", ".state"), { recursive: true });
      writeFileSync(paths.lock, typeof record === "string" ? record : JSON.stringify(record));
      if (ageMs > 0) {
        const then = new Date(Date.now() - ageMs);
        utimesSync(paths.lock, then, then);
      }
    }

    it("takes over a lock whose holder died and removes its temporaries", async () => {
      const pid = deadPid();
      const tag = `${pid}-deadbeef`;
      plantLock(TUI, { pid, host: hostname(), tag, token: `${tag}.1`, at: Date.now() });
      writeFileSync(tempPathFor(pathsOf(TUI).todos, tag), '{"half');
      await store.transact(TUI, () => ({ todos: list("after recovery"), result: null }));
      expect((await store.read(TUI)).todos).toEqual(list("after recovery"));
      await settle();
      expect(entryExists(pathsOf(TUI).lock)).toBe(false);
      expect(entryExists(tempPathFor(pathsOf(TUI).todos, tag))).toBe(false);
    });

    it("waits for a live holder and times out with who holds it, changing nothing", async () => {
      store = open({ lockTimeoutMs: 200 });
      await store.transact(TUI, () => ({ todos: list("before"), result: null }));
      await settle();
      plantLock(TUI, {
        pid: process.pid,
        host: hostname(),
        tag: "x",
        token: "x.1",
        at: Date.now(),
      });
      await expect(
        store.transact(TUI, () => ({ todos: list("after"), result: null })),
      ).rejects.toThrow(`waiting for the lock of tui (shared) (held by pid ${process.pid}`);
      expect((await store.read(TUI)).todos).toEqual(list("before"));
      expect(entryExists(pathsOf(TUI).lock)).toBe(true);
    });

    it("takes over a live holder's lock once it is older than lockStaleMs", async () => {
      store = open({ lockStaleMs: 1_000, lockTimeoutMs: 5_000 });
      plantLock(
        TUI,
        { pid: process.pid, host: "elsewhere", tag: "x", token: "x.1", at: 0 },
        60_000,
      );
      await store.transact(TUI, () => ({ todos: list("taken over"), result: null }));
      expect((await store.read(TUI)).todos).toEqual(list("taken over"));
    });

    it("takes over an unwritten lock only once it is old", async () => {
      store = open({ lockTimeoutMs: 200 });
      plantLock(TUI, "");
      await expect(store.transact(TUI, () => ({ result: null }))).rejects.toThrow(/timed out/);
      plantLock(TUI, "", 60_000);
      await expect(store.transact(TUI, () => ({ result: "ok" }))).resolves.toBe("ok");
    });

    it("clears a takeover guard left by a crashed waiter", async () => {
      const pid = deadPid();
      const host = hostname();
      plantLock(TUI, { pid, host, tag: "t", token: "t.1", at: Date.now() });
      writeFileSync(`${pathsOf(TUI).lock}.steal`, JSON.stringify({ pid, host, at: Date.now() }));
      await expect(store.transact(TUI, () => ({ result: "ok" }))).resolves.toBe("ok");
      expect(entryExists(`${pathsOf(TUI).lock}.steal`)).toBe(false);
    });
  });
});

describe("a committed transaction", () => {
  it("leaves no temporary behind, write after write to the same scope", async () => {
    const root = await mkdtemp(join(tmpdir(), "tc-commit-temps-"));
    try {
      const store = createFileStore({ root });
      const scope = resolveScope({ kind: "session", host: "test", sessionId: "temps" }) as Scope;
      for (let n = 1; n <= 300; n++) {
        await store.transact(scope, () => ({
          todos: { ...emptyList(), todos: [{ id: "1", content: `step ${n}`, status: "pending" }] },
          state: { ...emptyState(), lastUserTurnAt: n },
          result: undefined,
        }));
      }
      const names = readdirSync(root, { recursive: true }).map(String);
      expect(names.filter((name) => name.endsWith(".tmp"))).toEqual([]);
      const read = await store.read(scope);
      expect(read.state.lastUserTurnAt).toBe(300);
      expect(read.todos.todos[0]?.content).toBe("step 300");
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
