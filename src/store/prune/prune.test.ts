import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import { isStale } from "../../core/notify/stale.js";
import { resolveScope } from "../../core/scope/scope.js";
import type { DecisionLogEntry, Scope, Store, TodoStatus } from "../../core/types.js";
import { createFileStore, type FileStore } from "../file/file-store.js";
import { newLockOwner, tryLock, unlock } from "../file/lock.js";
import { scopePaths } from "../file/paths.js";
import { createPostgresStore, type PostgresStore } from "../postgres/postgres-store.js";
import { dropSchema, randomSchema, TEST_DATABASE_URL } from "../postgres/test-support/database.js";
import { applyPrune, planPrune } from "./prune.js";
import { restoreArchive } from "./restore.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);
const criteria = { now: NOW, olderThanMs: 30 * DAY, states: ["idle", "done", "stopped"] as const };

const session = (id: string) =>
  resolveScope({ kind: "session", host: "test", sessionId: id }) as Scope;
const OLD_DONE = session("old-done");
const OLD_IDLE = session("old-idle");
const RECENT = session("recent");
const OLD_OPEN = session("old-open");
const OLD_PARKED = session("old-parked");

const COUNTS = { autoTurns: 0, tokens: 0, stagnation: 0, actionable: 0, blocked: 0 };
const NO_NUDGE = { nudgeChars: null, nudgeTokens: null };

function entry(
  at: number,
  action: DecisionLogEntry["action"],
  episodeId: string | null,
): DecisionLogEntry {
  return {
    at,
    action,
    reason: action === "skip" ? "no-incomplete-todos" : null,
    episodeId,
    ...COUNTS,
    ...NO_NUDGE,
    trigger: "stop-hook",
  };
}

async function put(store: Store, scope: Scope, at: number, statuses: TodoStatus[], open = false) {
  await store.transact(scope, () => ({
    todos: {
      todos: statuses.map((status, i) => ({
        content: `item ${i}`,
        status,
        ...(status === "blocked" ? { blockedReason: "waits" } : {}),
      })),
      phases: [],
      nextId: 1,
    },
    state: {
      ...emptyState(),
      lastUserTurnAt: at,
      episode: open
        ? {
            id: "ep-open",
            startedAt: at,
            autoTurns: 1,
            tokens: 0,
            stagnation: 0,
            lastFingerprint: null,
            minIncomplete: null,
            maxCompleted: null,
            lastCountedTurnId: null,
            failures: 0,
            lastInjectionAt: at,
            lastFailureAt: null,
          }
        : null,
    },
    log: [entry(at, open ? "inject" : "skip", open ? "ep-open" : null)],
    result: undefined,
  }));
}

async function seedAll(store: Store) {
  await put(store, OLD_DONE, NOW - 40 * DAY, ["completed"]);
  await put(store, OLD_IDLE, NOW - 31 * DAY, ["pending"]);
  await put(store, RECENT, NOW - 2 * DAY, ["completed"]);
  await put(store, OLD_OPEN, NOW - 90 * DAY, ["pending"], true);
  await put(store, OLD_PARKED, NOW - 90 * DAY, ["blocked"]);
}

function tree(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const s = lstatSync(p);
      if (s.isDirectory()) walk(p);
      else out[relative(dir, p)] = s.mtimeMs;
    }
  };
  walk(dir);
  return out;
}

describe("isStale", () => {
  it("is old enough, not in an episode, and of known age", () => {
    expect(isStale({ lastActivityAt: NOW - 31 * DAY, openEpisode: false }, NOW, 30 * DAY)).toBe(
      true,
    );
    expect(isStale({ lastActivityAt: NOW - 29 * DAY, openEpisode: false }, NOW, 30 * DAY)).toBe(
      false,
    );
    expect(isStale({ lastActivityAt: NOW - 99 * DAY, openEpisode: true }, NOW, 30 * DAY)).toBe(
      false,
    );
    expect(isStale({ lastActivityAt: null, openEpisode: false }, NOW, 30 * DAY)).toBe(false);
    expect(isStale({ lastActivityAt: NOW - DAY, openEpisode: false }, NOW, Number.NaN)).toBe(false);
  });
});

describe("prune on the file store (real files)", () => {
  let root: string;
  let archive: string;
  let store: FileStore;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "tc-prune-file-"));
    archive = mkdtempSync(join(tmpdir(), "tc-prune-archive-"));
    rmSync(archive, { recursive: true });
    const seeder = createFileStore({ root });
    await seedAll(seeder);
    await seeder.close();
    store = createFileStore({ root });
  });
  afterAll(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(archive, { recursive: true, force: true });
  });

  it("plans only old scopes of the chosen states, sparing an open episode; touches nothing", async () => {
    const before = tree(root);
    const plan = await planPrune(store, criteria);
    expect(plan.candidates.map((c) => c.scope.key).sort()).toEqual(
      [OLD_DONE.key, OLD_IDLE.key].sort(),
    );
    expect(plan.candidates.find((c) => c.scope.key === OLD_DONE.key)?.state).toBe("done");
    expect(plan.openEpisodes.map((s) => s.key)).toEqual([OLD_OPEN.key]);
    expect(tree(root)).toEqual(before);
    const parked = await planPrune(store, { ...criteria, states: ["parked"] });
    expect(parked.candidates.map((c) => c.scope.key)).toEqual([OLD_PARKED.key]);
  });

  it("leaves a scope whose lock is held", async () => {
    const plan = await planPrune(store, { ...criteria, states: ["parked"] });
    const lock = tryLock(scopePaths(store.todoDir, OLD_PARKED).lock, newLockOwner(), {
      staleMs: 60_000,
    });
    expect(lock).not.toBeNull();
    try {
      const results = await applyPrune(
        store,
        plan,
        { delete: true },
        { ...criteria, states: ["parked"] },
      );
      expect(results.map((r) => r.outcome)).toEqual(["locked"]);
    } finally {
      if (lock !== null) unlock(lock);
    }
    expect((await store.read(OLD_PARKED)).todos.todos).toHaveLength(1);
  });

  it("archives by moving the files, and a restore puts them back as they were", async () => {
    const wanted = await store.read(OLD_DONE);
    const wantedLog = await store.readLog(OLD_DONE);
    const plan = await planPrune(store, criteria);
    const results = await applyPrune(store, plan, { archive }, criteria);
    expect(results.map((r) => r.outcome)).toEqual(["archived", "archived"]);
    const keys = (await store.listScopes()).map((s) => s.key).sort();
    expect(keys).toEqual([OLD_OPEN.key, OLD_PARKED.key, RECENT.key].sort());
    const paths = scopePaths(store.todoDir, OLD_DONE);
    expect(existsSync(paths.todos)).toBe(false);
    expect(existsSync(join(archive, relative(root, paths.todos)))).toBe(true);
    expect(existsSync(join(archive, relative(root, paths.state)))).toBe(true);

    const restored = await restoreArchive(store, archive);
    expect(restored.every((r) => r.restored)).toBe(true);
    const back = await store.read(OLD_DONE);
    expect(back.todos).toEqual(wanted.todos);
    expect(back.state).toEqual(wanted.state);
    expect(back.state.untrusted).toBe(false);
    expect(await store.readLog(OLD_DONE)).toEqual(wantedLog);
  });

  it("deletes, and never a scope that became active after the plan", async () => {
    const plan = await planPrune(store, criteria);
    expect(plan.candidates).toHaveLength(2);
    // The idle scope's agent comes back between the plan and the prune (another
    // process: closing its store releases the lock it keeps for a while after a write).
    const agent = createFileStore({ root });
    await put(agent, OLD_IDLE, NOW - 1_000, ["pending"]);
    await agent.close();
    const results = await applyPrune(store, plan, { delete: true }, criteria);
    const by = Object.fromEntries(results.map((r) => [r.scope.key, r.outcome]));
    expect(by).toEqual({ [OLD_DONE.key]: "deleted", [OLD_IDLE.key]: "kept" });
    expect((await store.read(OLD_IDLE)).todos.todos).toHaveLength(1);
    expect((await store.read(OLD_DONE)).todos.todos).toHaveLength(0);
  });
});

describe("prune on PostgreSQL (the real database)", () => {
  const schema = randomSchema("tc_prune");
  let store: PostgresStore;
  let archive: string;
  beforeAll(async () => {
    store = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
    await store.ready();
    await seedAll(store);
    archive = join(mkdtempSync(join(tmpdir(), "tc-prune-pg-")), "archive");
  });
  afterAll(async () => {
    await store.close();
    await dropSchema(schema);
    rmSync(join(archive, ".."), { recursive: true, force: true });
  });

  it("plans the same scopes as the file store", async () => {
    const plan = await planPrune(store, criteria);
    expect(plan.candidates.map((c) => c.scope.key).sort()).toEqual(
      [OLD_DONE.key, OLD_IDLE.key].sort(),
    );
    expect(plan.openEpisodes.map((s) => s.key)).toEqual([OLD_OPEN.key]);
  });

  it("leaves a scope whose row another transaction holds", async () => {
    const plan = await planPrune(store, { ...criteria, states: ["parked"] });
    const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM "${schema}".scopes WHERE key = $1 FOR UPDATE`, [
        OLD_PARKED.key,
      ]);
      const results = await applyPrune(
        store,
        plan,
        { delete: true },
        { ...criteria, states: ["parked"] },
      );
      expect(results.map((r) => r.outcome)).toEqual(["locked"]);
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
    expect((await store.read(OLD_PARKED)).todos.todos).toHaveLength(1);
  });

  it("exports rows to JSON then deletes them in one transaction; a restore puts them back", async () => {
    const wanted = await store.read(OLD_DONE);
    const wantedLog = await store.readLog(OLD_DONE);
    const plan = await planPrune(store, criteria);
    const results = await applyPrune(store, plan, { archive }, criteria);
    expect(results.map((r) => r.outcome)).toEqual(["archived", "archived"]);
    expect((await store.listScopes()).map((s) => s.key)).not.toContain(OLD_DONE.key);
    expect(await store.readLog(OLD_DONE)).toEqual([]);
    const restored = await restoreArchive(store, archive);
    expect(restored.filter((r) => r.restored)).toHaveLength(2);
    const back = await store.read(OLD_DONE);
    expect(back.todos).toEqual(wanted.todos);
    expect(back.state).toEqual(wanted.state);
    expect(back.stateRevision).toBe(wanted.stateRevision);
    expect(await store.readLog(OLD_DONE)).toEqual(wantedLog);
    // A second restore overwrites nothing.
    expect((await restoreArchive(store, archive)).every((r) => !r.restored)).toBe(true);
  });

  it("an archive that cannot be written deletes nothing", async () => {
    const plan = await planPrune(store, criteria);
    // A folder that cannot be made: its parent is a file.
    const blocker = join(archive, "..", "a-file");
    writeFileSync(blocker, "");
    const results = await applyPrune(store, plan, { archive: join(blocker, "x") }, criteria);
    expect(results.every((r) => r.outcome === "failed")).toBe(true);
    expect((await store.read(OLD_DONE)).todos.todos).toHaveLength(1);
  });
});
