import { EventEmitter } from "node:events";
import { type FSWatcher, watch as fsWatch } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import { resolveScope } from "../../core/scope/scope.js";
import { emptyList } from "../../core/todo/model.js";
import type { DecisionLogEntry, Scope } from "../../core/types.js";
import { createFileStore, type FileStore } from "./index.js";
import { scopePaths } from "./paths.js";
import { preserveCopy } from "./preserve.js";
import { entry } from "./test-support/fixtures.js";
import { type ScopeChanges, scopeKeyOfFile, type WatchStatus, watchFileStore } from "./watch.js";

describe("scopeKeyOfFile", () => {
  it.each([
    ["tui.json", "tui"],
    [".state/tui.json", "tui"],
    [".state/cron/snightly.log.jsonl", "cron/snightly"],
    ["session/sclaude-code.ss-1.json", "session/sclaude-code.ss-1"],
    ["session/sclaude-code.sjson.json", "session/sclaude-code.sjson"],
    [".state/session/sclaude-code.ss-1.stop", "session/sclaude-code.ss-1"],
    [".state/tui.lock.wait", "tui"],
    [".state/tui.log.jsonl.1", "tui"],
    ["tui.json.corrupt", "tui"],
    [".state/tui.log.jsonl.corrupt", "tui"],
    ["tui.json.corrupt-1764160000000", "tui"],
    ["tui.json.corrupt.12-1764160000000", "tui"],
    [".state/tui.json.corrupt.1-1764160000000", "tui"],
    ["session/sclaude-code.ss-1.json.corrupt-1764160000000-3", "session/sclaude-code.ss-1"],
    [".state/tui.lock", "transient"],
    [".state/tui.lock.steal", "transient"],
    ["tui.json.abc123.tmp", "transient"],
    [".state/tui.stop.abc.tmp", "transient"],
    ["session", null],
    [".state", null],
    ["notes.txt", null],
    ["tui.json.bak", null],
    ["nokind/sx.json", null],
  ])("%s -> %s", (name, key) => {
    expect(scopeKeyOfFile(name)).toBe(key);
  });

  it("places every document of any scope under its key", () => {
    const text = fc.string({ minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(text, text, (host, sessionId) => {
        const scope = resolveScope({ kind: "session", host, sessionId });
        if (scope === null) return;
        const paths = scopePaths("/t", scope);
        for (const path of [paths.todos, paths.state, paths.log, paths.stop]) {
          const rel = relative("/t", path);
          expect(scopeKeyOfFile(rel)).toBe(scope.key);
          expect(scopeKeyOfFile(`${rel}.corrupt-1764160000000`)).toBe(scope.key);
          expect(scopeKeyOfFile(`${rel}.corrupt.7-1764160000000`)).toBe(scope.key);
        }
        expect(scopeKeyOfFile(`${relative("/t", paths.log)}.1`)).toBe(scope.key);
        expect(scopeKeyOfFile(`${relative("/t", paths.lock)}.wait`)).toBe(scope.key);
        expect(scopeKeyOfFile(relative("/t", paths.lock))).toBe("transient");
      }),
    );
  });

  it("places the copies the store really preserves under their scope", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tc-watch-copy-"));
    try {
      const scope = resolveScope({ kind: "session", host: "claude-code", sessionId: "s-1" });
      if (scope === null) throw new Error("no scope");
      const paths = scopePaths(dir, scope);
      for (const path of [paths.todos, paths.state, paths.log]) {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, "{");
        for (let i = 0; i < 3; i++) {
          const copy = preserveCopy(path);
          if (copy === null) throw new Error(`no copy of ${path}`);
          expect(scopeKeyOfFile(relative(dir, copy))).toBe(scope.key);
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

function logEntry(at: number): DecisionLogEntry {
  return entry(at, { stagnation: 0 });
}

/** Collects what a watch reports: how often each key was named, and "all"s. */
class Seen {
  counts = new Map<string, number>();
  alls = 0;
  statuses: WatchStatus[] = [];
  readonly onChange = (changes: ScopeChanges) => {
    if (changes === "all") this.alls++;
    else for (const key of changes) this.counts.set(key, this.count(key) + 1);
  };
  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }
  /** Waits until `key` is reported again (an "all" counts too), after `write` ran. */
  async seesAfter(key: string, write: () => Promise<unknown>): Promise<void> {
    const before = this.count(key);
    const allsBefore = this.alls;
    await write();
    await expect
      .poll(() => this.count(key) > before || this.alls > allsBefore, {
        timeout: 3000,
        interval: 5,
      })
      .toBe(true);
  }
}

const session = (id: string): Scope =>
  resolveScope({ kind: "session", host: "claude-code", sessionId: id })!;
const cron = resolveScope({ kind: "cron", jobId: "nightly" })!;

function writes(store: FileStore, scope: Scope) {
  return {
    list: (content: string) =>
      store.transact(scope, () => ({
        todos: { ...emptyList(), todos: [{ content, status: "pending" as const }] },
        result: null,
      })),
    state: (stopped: boolean) =>
      store.transact(scope, (s) => ({ state: { ...s.state, stopped }, result: null })),
    log: (at: number) => store.transact(scope, () => ({ log: [logEntry(at)], result: null })),
  };
}

describe("watchFileStore", () => {
  let root = "";
  let store: FileStore | null = null;
  let watch: { close(): void; status(): WatchStatus } | null = null;
  afterEach(async () => {
    watch?.close();
    watch = null;
    await store?.close();
    store = null;
    if (root !== "") await rm(root, { recursive: true, force: true });
  });

  async function start(
    options: Parameters<typeof watchFileStore>[2] = {},
    before?: (store: FileStore) => Promise<void>,
  ): Promise<Seen> {
    root = await mkdtemp(join(tmpdir(), "tc-watch-"));
    store = createFileStore({ root });
    await before?.(store);
    const seen = new Seen();
    watch = watchFileStore(store.todoDir, seen.onChange, {
      settleMs: 5,
      onStatus: (s) => seen.statuses.push(s),
      ...options,
    });
    // Let the first listing of the folders settle.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return seen;
  }

  it("sees every one of hundreds of writes to the same list, state and log", async () => {
    const scope = session("s-1");
    const seen = await start({}, async (s) => {
      await writes(s, scope).list("first");
    });
    const w = writes(store!, scope);
    for (let i = 0; i < 150; i++) {
      await seen.seesAfter(scope.key, () => w.list(`item ${i}`));
      await seen.seesAfter(scope.key, () => w.state(i % 2 === 0));
      await seen.seesAfter(scope.key, () => w.log(1_000 + i));
    }
    // Every change was named by its scope; nothing fell back to reloading everything.
    expect(seen.alls).toBe(0);
    expect(watch!.status()).toEqual({ mode: "watching" });
  }, 120_000);

  it("follows folders made after it started, and folders removed and made again", async () => {
    const seen = await start();
    const w = writes(store!, cron);
    // The cron folders do not exist yet.
    for (let i = 0; i < 20; i++) await seen.seesAfter(cron.key, () => w.list(`a${i}`));
    await rm(join(store!.todoDir, ".state"), { recursive: true, force: true });
    await rm(join(store!.todoDir, "cron"), { recursive: true, force: true });
    // A removed folder reports the scopes it held.
    await expect.poll(() => seen.count(cron.key), { timeout: 3000 }).toBeGreaterThan(20);
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (let i = 0; i < 20; i++) await seen.seesAfter(cron.key, () => w.list(`b${i}`));
    for (let i = 0; i < 20; i++) await seen.seesAfter(cron.key, () => w.state(i % 2 === 0));
    expect(seen.alls).toBe(0);
    expect(watch!.status().mode).toBe("watching");
  }, 60_000);

  it("polls while the todo folder is gone and watches again once it is back", async () => {
    const seen = await start({ pollMs: 50 });
    const w = writes(store!, cron);
    await seen.seesAfter(cron.key, () => w.list("a"));
    await rm(store!.todoDir, { recursive: true, force: true });
    await expect.poll(() => watch!.status().mode, { timeout: 30_000 }).toBe("polling");
    expect(watch!.status()).toMatchObject({ reason: expect.stringContaining("was removed") });
    for (let i = 0; i < 10; i++) await seen.seesAfter(cron.key, () => w.list(`b${i}`));
    await expect.poll(() => watch!.status().mode, { timeout: 30_000 }).toBe("watching");
    for (let i = 0; i < 10; i++) await seen.seesAfter(cron.key, () => w.state(i % 2 === 0));
  }, 60_000);

  it("notices the todo folder's removal and return though no event tells of them", async () => {
    // The kernel reports a folder's own removal only once nothing holds it open: a watch that
    // never hears of it, nor of the folders inside it going, must still find out, every time.
    const blind = ((path: string, options: object, listener: (e: string, f: string) => void) =>
      fsWatch(path, options, (event, filename) => {
        // Folders' names (the todo folder's own, a kind's, the state folder) are never heard.
        const name = String(filename);
        if (filename === null || !name.includes(".") || name === ".state") return;
        listener(event, name);
      })) as unknown as typeof fsWatch;
    const seen = await start({ watch: blind, pollMs: 50 }, async (s) => {
      await writes(s, cron).list("before");
      await writes(s, cron).state(true);
    });
    const w = writes(store!, cron);
    for (let round = 0; round < 3; round++) {
      await seen.seesAfter(cron.key, () => w.list(`watched ${round}`));
      await rm(store!.todoDir, { recursive: true, force: true });
      await expect.poll(() => watch!.status().mode, { timeout: 10_000 }).toBe("polling");
      expect(watch!.status()).toMatchObject({ reason: expect.stringContaining("was removed") });
      await seen.seesAfter(cron.key, () => w.list(`while gone ${round}`));
      await seen.seesAfter(cron.key, () => w.state(round % 2 === 0));
      await expect.poll(() => watch!.status().mode, { timeout: 10_000 }).toBe("watching");
    }
  }, 60_000);

  it("falls back to rescanning when a folder cannot be watched, and says why", async () => {
    const failing = (() => {
      throw Object.assign(new Error("inotify limit reached"), { code: "ENOSPC" });
    }) as unknown as typeof fsWatch;
    const seen = await start({ watch: failing, pollMs: 50 });
    expect(watch!.status()).toMatchObject({ mode: "polling", everyMs: 50 });
    expect((watch!.status() as { reason: string }).reason).toContain("ENOSPC");
    expect(seen.statuses.at(-1)?.mode).toBe("polling");
    const w = writes(store!, cron);
    for (let i = 0; i < 30; i++) {
      await seen.seesAfter(cron.key, () => (i % 2 ? w.list(`x${i}`) : w.log(i)));
    }
  }, 60_000);

  it("falls back to rescanning when a watch reports an error", async () => {
    const made: FSWatcher[] = [];
    const recording = ((path: string, options: object, listener: never) => {
      const watcher = fsWatch(path, options, listener);
      made.push(watcher);
      return watcher;
    }) as unknown as typeof fsWatch;
    const seen = await start({ watch: recording, pollMs: 50 });
    made[0]!.emit("error", Object.assign(new Error("queue overflow"), { code: "EIO" }));
    expect(watch!.status()).toMatchObject({ mode: "polling" });
    const w = writes(store!, cron);
    for (let i = 0; i < 10; i++) await seen.seesAfter(cron.key, () => w.list(`x${i}`));
  }, 60_000);

  it("switches to rescanning when its check finds a change no event reported", async () => {
    // A watch that never reports anything, like one whose events were lost to an overflow.
    const deaf = (() =>
      Object.assign(new EventEmitter(), { close() {} })) as unknown as typeof fsWatch;
    const seen = await start({ watch: deaf, pollMs: 50, auditMs: 100 }, async (s) => {
      await writes(s, cron).list("before");
    });
    expect(watch!.status().mode).toBe("watching");
    // Written until the check (every 100 ms) has a rescan from before one of the writes.
    let n = 0;
    await expect
      .poll(
        async () => {
          await writes(store!, cron).list(`unreported ${n++}`);
          return watch!.status().mode;
        },
        { timeout: 3000, interval: 50 },
      )
      .toBe("polling");
    expect((watch!.status() as { reason: string }).reason).toContain("missed changes");
    const w = writes(store!, cron);
    for (let i = 0; i < 10; i++) await seen.seesAfter(cron.key, () => w.state(i % 2 === 0));
  }, 60_000);

  it("reports a stop, a lock wait and a preserved copy as their scope alone", async () => {
    const scope = session("s-2");
    const seen = await start({}, async (s) => {
      await s.transact(scope, () => ({ state: emptyState(), result: null }));
    });
    const paths = scopePaths(store!.todoDir, scope);
    const { writeFile } = await import("node:fs/promises");
    await seen.seesAfter(scope.key, () => writeFile(paths.stop, ""));
    await seen.seesAfter(scope.key, () => writeFile(`${paths.lock}.wait`, "1 x"));
    await seen.seesAfter(scope.key, () => writeFile(`${paths.state}.corrupt-1764160000000`, "{"));
    await seen.seesAfter(scope.key, () => writeFile(`${paths.log}.1`, ""));
    expect(seen.alls).toBe(0);
  });
});
