import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { DecisionLogEntry, Scope, ScopeScan } from "../../core/types.js";
import { scanScopes } from "../scan.js";
import { createFileStore, type FileStore } from "./file-store.js";
import { readLogEntries } from "./log.js";
import { newestEntries } from "./log-tail.js";
import { scopePaths } from "./paths.js";
import { fixtureScope, writeScaleFixture } from "./scale-fixture.js";

/** Healthy scopes around the damaged ones, so the folders are big enough to matter. */
const HEALTHY = 300;
const LOG_LIMIT = 30;

let root: string;
let store: FileStore;
let damaged: Record<string, Scope>;

function session(id: string): Scope {
  return resolveScope({ kind: "session", host: "claude-code", sessionId: id })!;
}

function entry(at: number): DecisionLogEntry {
  return {
    at,
    action: at % 2 === 0 ? "inject" : "skip",
    reason: at % 2 === 0 ? null : "cooldown",
    episodeId: "ep",
    autoTurns: at,
    tokens: 0,
    stagnation: 0,
    actionable: 1,
    blocked: 0,
    nudgeChars: at % 2 === 0 ? 10 : null,
    nudgeTokens: at % 2 === 0 ? 3 : null,
    trigger: "idle",
  };
}

const COPY = ".corrupt-1700000000000";

/** Every kind of trouble a store folder can hold, one scope each (plus healthy neighbours). */
async function damage(): Promise<Record<string, Scope>> {
  const scopes = {
    badTodos: session("bad-todos"),
    lossyTodos: session("lossy-todos"),
    badState: session("bad-state"),
    editedState: session("edited-state"),
    logFolder: session("log-folder"),
    copiesOnly: session("copies-only"),
    oldCopyName: session("old-copy-name"),
    stopped: session("stopped"),
    waiting: session("waiting"),
    rotated: session("rotated"),
    orphans: session("orphans"),
    tornLog: session("torn-log"),
    logOnly: session("log-only"),
    symlinked: session("symlinked"),
    prefix: session("x"),
    prefixed: session("x.corrupt"),
    tui: resolveScope({ kind: "tui" })!,
    cron: resolveScope({ kind: "cron", jobId: "nightly" })!,
  };
  for (const scope of Object.values(scopes)) {
    await store.transact(scope, () => ({
      todos: { todos: [{ content: "a", status: "pending" }], phases: [], nextId: 1 },
      log: Array.from({ length: 12 }, (_, i) => entry(i + 1)),
      result: null,
    }));
    await store.transact(scope, (s) => ({
      state: { ...s.state, lastUserTurnAt: 5 },
      result: null,
    }));
  }
  const p = (scope: Scope) => scopePaths(store.todoDir, scope);
  writeFileSync(p(scopes.badTodos).todos, "{ not json");
  writeFileSync(p(scopes.badTodos).todos + COPY, "older");
  writeFileSync(
    p(scopes.lossyTodos).todos,
    JSON.stringify({
      version: 1,
      revision: 3,
      todos: [{ content: "ok", status: "pending" }, { status: 7 }],
    }),
  );
  writeFileSync(p(scopes.badState).state, "[1, 2");
  const edited = JSON.parse(readFileSync(p(scopes.editedState).state, "utf8"));
  edited.lastUserTurnAt = 99;
  writeFileSync(p(scopes.editedState).state, JSON.stringify(edited));
  rmSync(p(scopes.logFolder).log);
  mkdirSync(p(scopes.logFolder).log);
  for (const file of [
    p(scopes.copiesOnly).todos,
    p(scopes.copiesOnly).state,
    p(scopes.copiesOnly).log,
  ]) {
    writeFileSync(`${file}.corrupt-1700000000002`, "x");
    writeFileSync(`${file}.corrupt-1700000000001-1`, "x");
    writeFileSync(`${file}.corrupt-1700000000001`, "x");
    writeFileSync(`${file}.corrupt-12`, "not a copy name");
  }
  writeFileSync(`${p(scopes.oldCopyName).todos}.corrupt`, "x");
  writeFileSync(p(scopes.stopped).stop, "");
  writeFileSync(p(scopes.waiting).lock, "{}");
  writeFileSync(`${p(scopes.waiting).lock}.wait`, "{}");
  writeFileSync(`${p(scopes.rotated).log}.1`, `${JSON.stringify(entry(500))}\n`);
  writeFileSync(`${p(scopes.orphans).todos}.123-deadbeef.tmp`, "half");
  writeFileSync(`${p(scopes.orphans).state}.123-deadbeef.tmp`, "half");
  writeFileSync(
    p(scopes.tornLog).log,
    `${JSON.stringify(entry(1))}\n\n  \n{"torn": tr\n${JSON.stringify(entry(2))}\n{"action":"skip"`,
  );
  rmSync(p(scopes.logOnly).todos);
  rmSync(p(scopes.logOnly).state);
  const outside = join(root, "elsewhere.json");
  writeFileSync(outside, "{}");
  rmSync(p(scopes.symlinked).todos);
  symlinkSync(outside, p(scopes.symlinked).todos);
  // A copy of `x`'s list whose name also starts like `x.corrupt`'s files.
  writeFileSync(`${p(scopes.prefix).todos}${COPY}`, "x");
  writeFileSync(`${p(scopes.prefixed).state}${COPY}`, "x");
  // Stray files that are no scope at all.
  writeFileSync(join(dirname(p(scopes.tui).state), "notes.txt"), "hello");
  mkdirSync(join(store.todoDir, "session", "stray-folder"), { recursive: true });
  return scopes;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "tc-scan-"));
  await writeScaleFixture(root, HEALTHY, 5);
  store = createFileStore({ root, logLimit: LOG_LIMIT });
  damaged = await damage();
});

afterAll(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

async function collect(iterable: AsyncIterable<ScopeScan[]>): Promise<ScopeScan[][]> {
  const batches: ScopeScan[][] = [];
  for await (const batch of iterable) batches.push(batch);
  return batches;
}

/** What the single-scope methods answer, in the scan's shape. */
async function single(scope: Scope, tail: number): Promise<unknown> {
  try {
    const [snapshot, log, problems] = [
      await store.read(scope),
      await store.readLog(scope, tail),
      await store.problems!(scope),
    ];
    return { scope, ok: true, snapshot, log, problems };
  } catch (error) {
    return { scope, ok: false, error };
  }
}

function withoutExists(item: ScopeScan): unknown {
  if (!item.ok) return item;
  const { exists: _, ...rest } = item;
  return rest;
}

describe("file store scan", () => {
  it("gives every scope exactly what read, readLog and problems give, for every kind of damage", async () => {
    const tails = [0, 1, 1000];
    for (const tail of tails) {
      const scanned = (await collect(scanScopes(store, { logTail: tail, batchSize: 97 }))).flat();
      const listed = await store.listScopes();
      expect(scanned.map((s) => s.scope)).toEqual(listed);
      expect(listed.length).toBe(HEALTHY + Object.keys(damaged).length);
      for (const item of scanned) {
        expect(withoutExists(item)).toEqual(await single(item.scope, tail));
      }
    }
  });

  it("finds each kind of problem it is meant to find (the comparison above is not vacuous)", async () => {
    const [items] = await collect(
      scanScopes(store, { scopes: [...Object.values(damaged), fixtureScope(7)], batchSize: 100 }),
    );
    const by = new Map(items!.map((item) => [item.scope.key, item]));
    const ok = (scope: Scope) => {
      const item = by.get(scope.key)!;
      if (!item.ok) throw item.error;
      return item;
    };
    const problemOf = (scope: Scope, document: string) =>
      ok(scope).problems.find((p) => p.document === document);
    expect(problemOf(damaged.badTodos!, "todos")?.problem).toBe("not readable as JSON");
    expect(problemOf(damaged.badTodos!, "todos")?.preserved).toHaveLength(1);
    expect(problemOf(damaged.lossyTodos!, "todos")?.problem).toMatch(/1 of 2 entries/);
    expect(problemOf(damaged.badState!, "state")?.problem).toBe("not readable as JSON");
    expect(problemOf(damaged.editedState!, "state")?.problem).toMatch(/checksum/);
    expect(problemOf(damaged.logFolder!, "log")?.problem).toBe("too big or not a file");
    for (const document of ["todos", "state", "log"]) {
      const found = problemOf(damaged.copiesOnly!, document)!;
      expect(found.problem).toBeNull();
      expect(found.preserved.map((p) => p.slice(p.lastIndexOf(".corrupt")))).toEqual([
        ".corrupt-1700000000001",
        ".corrupt-1700000000001-1",
        ".corrupt-1700000000002",
      ]);
    }
    expect(problemOf(damaged.oldCopyName!, "todos")?.preserved[0]).toMatch(/\.corrupt$/);
    expect(ok(damaged.stopped!).snapshot.state.stopped).toBe(true);
    expect(ok(damaged.rotated!).log.at(-1)?.at).toBe(12);
    expect(ok(damaged.tornLog!).log.map((e) => e.at)).toEqual([2]);
    expect(ok(damaged.logOnly!).snapshot.todosRevision).toBe(0);
    expect(ok(damaged.logOnly!).exists).toBe(true);
    expect(problemOf(damaged.prefix!, "todos")?.preserved).toHaveLength(1);
    expect(problemOf(damaged.prefix!, "state")).toBeUndefined();
    expect(problemOf(damaged.prefixed!, "state")?.preserved).toHaveLength(1);
    expect(problemOf(damaged.prefixed!, "todos")).toBeUndefined();
    const link = by.get(damaged.symlinked!.key)!;
    expect(link.ok).toBe(false);
    expect(!link.ok && link.error.message).toMatch(/symlink/);
    expect(ok(fixtureScope(7)).problems).toEqual([]);
  });

  it("reads given scopes in the given order, once each, and says which hold nothing", async () => {
    const unknown = session("never-written");
    const given = [damaged.tui!, unknown, fixtureScope(3), damaged.tui!, fixtureScope(1)];
    const items = (await collect(scanScopes(store, { scopes: given, logTail: 2 }))).flat();
    expect(items.map((i) => i.scope.key)).toEqual(
      [damaged.tui!, unknown, fixtureScope(3), fixtureScope(1)].map((s) => s.key),
    );
    const missing = items[1]!;
    expect(missing.ok && missing.exists).toBe(false);
    expect(items.filter((i) => i.ok && i.exists)).toHaveLength(3);
    for (const item of items) expect(withoutExists(item)).toEqual(await single(item.scope, 2));
  });

  it("takes a log tail per scope and refuses bad options with what was wrong", async () => {
    const items = (
      await collect(
        scanScopes(store, {
          scopes: [damaged.tui!, damaged.cron!],
          logTail: (scope) => (scope.kind === "tui" ? 5 : 0),
        }),
      )
    ).flat();
    expect(items.map((i) => (i.ok ? i.log.length : -1))).toEqual([5, 0]);
    expect(() => scanScopes(store, { logTail: -1 })).toThrow(/logTail must be a non-negative/);
    expect(() => scanScopes(store, { batchSize: 0 })).toThrow(/batchSize must be a positive/);
    const bad = (await collect(scanScopes(store, { scopes: [damaged.tui!], logTail: () => 1.5 })))
      .flat()
      .at(0)!;
    expect(!bad.ok && bad.error.message).toMatch(/logTail gave 1.5/);
  });

  it("refuses a scope the store would refuse, and only that one", async () => {
    const forged = { key: "../../etc/passwd", kind: "session" } as unknown as Scope;
    const items = (await collect(scanScopes(store, { scopes: [forged, damaged.tui!] }))).flat();
    expect(items[0]!.ok).toBe(false);
    expect(items[1]!.ok).toBe(true);
  });

  it("stops between batches when aborted", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const batch of scanScopes(store, { batchSize: 50, signal: controller.signal })) {
          seen.push(batch.length);
          controller.abort(new Error("enough"));
        }
      })(),
    ).rejects.toThrow("enough");
    expect(seen).toEqual([50]);
  });

  it("yields in batches of the asked size, in key order", async () => {
    const batches = await collect(scanScopes(store, { batchSize: 128, logTail: 0 }));
    expect(batches.slice(0, -1).every((b) => b.length === 128)).toBe(true);
    const keys = batches.flat().map((i) => i.scope.key);
    expect(keys).toEqual([...keys].sort());
  });

  it("reads an empty or missing store as no scopes", async () => {
    const empty = createFileStore({ root: join(root, "nothing-here") });
    expect((await collect(scanScopes(empty))).flat()).toEqual([]);
    await empty.close();
  });
});

describe("newestEntries", () => {
  const line = fc.oneof(
    fc.integer({ min: 1, max: 1e6 }).map((at) => JSON.stringify(entry(at))),
    fc.constantFrom("", "  ", "{", "not json", '{"action":"skip"}', "\r", "[]"),
    fc.string(),
  );
  it("gives the same newest entries as reading the whole log", () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-scan-log-"));
    const path = join(dir, "x.log.jsonl");
    try {
      fc.assert(
        fc.property(
          fc.array(line, { maxLength: 30 }),
          fc.boolean(),
          fc.integer({ min: 0, max: 40 }),
          (lines, closed, limit) => {
            const text = lines.join("\n") + (closed ? "\n" : "");
            writeFileSync(path, text);
            expect(newestEntries(Buffer.from(text), limit)).toEqual(readLogEntries(path, limit));
          },
        ),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
