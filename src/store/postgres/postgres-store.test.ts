import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import { resolveScope } from "../../core/scope/scope.js";
import { emptyList } from "../../core/todo/model.js";
import type { DecisionLogEntry, Scope, TodoList } from "../../core/types.js";
import { runStoreContract } from "../contract.js";
import { PostgresUnavailableError } from "./errors.js";
import { createPostgresStore, type PostgresStore } from "./postgres-store.js";
import { TRIM_STEP } from "./statements.js";
import { dropSchema, randomSchema, sql, TEST_DATABASE_URL } from "./test-support/database.js";

const schema = randomSchema();
let store: PostgresStore;
let counter = 0;

function freshScope(): Scope {
  counter++;
  return resolveScope({ kind: "session", host: "test", sessionId: `s-${counter}` })!;
}

function list(...contents: string[]): TodoList {
  return {
    ...emptyList(),
    todos: contents.map((content) => ({ content, status: "pending" as const })),
  };
}

function entry(at: number, overrides: Partial<DecisionLogEntry> = {}): DecisionLogEntry {
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
    ...overrides,
  };
}

/** A concurrent writer that runs synchronously, from inside a transaction's callback. */
function psql(script: string): void {
  execFileSync("psql", [TEST_DATABASE_URL, "-v", "ON_ERROR_STOP=1", "-q", "-c", script]);
}

runStoreContract("PostgresStore", async () => {
  const own = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema: randomSchema() });
  return {
    store: own,
    cleanup: async () => {
      await own.close();
      await dropSchema(own.schema);
    },
  };
});

beforeAll(() => {
  store = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema, logLimit: 5 });
});

afterAll(async () => {
  await store.close();
  await dropSchema(schema);
});

describe("PostgresStore: documents", () => {
  it("keeps text the database's jsonb could not hold (NUL, astral, quotes)", async () => {
    const scope = freshScope();
    const content = 'nul \u0000 emoji 🧪 "quoted" \\ back';
    await store.transact(scope, () => ({ todos: list(content), result: null }));
    expect((await store.read(scope)).todos.todos[0]?.content).toBe(content);
  });
});

describe("PostgresStore: atomicity", () => {
  it("loses no update when 60 transactions on a pool of 20 race on one scope", async () => {
    const contended = createPostgresStore({
      connectionString: TEST_DATABASE_URL,
      schema,
      poolSize: 20,
    });
    try {
      const scope = freshScope();
      await Promise.all(
        Array.from({ length: 60 }, () =>
          contended.transact(scope, (snap) => ({
            state: { ...snap.state, lastUserTurnAt: (snap.state.lastUserTurnAt ?? 0) + 1 },
            result: null,
          })),
        ),
      );
      const snap = await contended.read(scope);
      expect(snap.state.lastUserTurnAt).toBe(60);
      expect(snap.stateRevision).toBe(60);
      expect(contended.contention().conflicts).toBeGreaterThan(0);
    } finally {
      await contended.close();
    }
  });

  it("takes the row lock after repeated lost races, and the locked write lands", async () => {
    const own = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
    try {
      const scope = freshScope();
      await own.transact(scope, () => ({ todos: list("start"), result: null }));
      const seen: string[][] = [];
      await own.transact(scope, (snap) => {
        const contents = snap.todos.todos.map((t) => t.content);
        seen.push(contents);
        // Each optimistic attempt loses to a writer that lands between read and write.
        if (seen.length <= 3) {
          psql(
            `UPDATE "${schema}".scopes SET todos = '${JSON.stringify(list(...contents, `other ${seen.length}`))}',
               version = nextval('"${schema}".write_token') WHERE key = '${scope.key}'`,
          );
        }
        return { todos: list(...contents, "mine"), result: null };
      });
      expect(seen).toHaveLength(4);
      expect(own.contention()).toEqual({ conflicts: 3, lockedFallbacks: 1, splitBatches: 0 });
      expect((await own.read(scope)).todos.todos.map((t) => t.content)).toEqual([
        "start",
        "other 1",
        "other 2",
        "other 3",
        "mine",
      ]);
    } finally {
      await own.close();
    }
  });

  it("leaves no placeholder row when the locked callback writes nothing", async () => {
    const own = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
    try {
      const scope = freshScope();
      const bump = () =>
        psql(
          `INSERT INTO "${schema}".scopes (key, kind, todos, state, version)
           VALUES ('${scope.key}', 'session', '{}', '{}', nextval('"${schema}".write_token'))
           ON CONFLICT (key) DO UPDATE SET version = nextval('"${schema}".write_token')`,
        );
      let calls = 0;
      const result = await own.transact(scope, () => {
        calls++;
        if (calls <= 2) bump();
        if (calls === 3) psql(`DELETE FROM "${schema}".scopes WHERE key = '${scope.key}'`);
        return calls <= 3 ? { todos: list("x"), result: "wrote" } : { result: "nothing" };
      });
      expect([calls, result]).toEqual([4, "nothing"]);
      expect(own.contention().lockedFallbacks).toBe(1);
      expect((await own.listScopes()).map((s) => s.key)).not.toContain(scope.key);
    } finally {
      await own.close();
    }
  });

  it("writes batches faithfully: kept documents stay, every character survives", async () => {
    const own = createPostgresStore({
      connectionString: TEST_DATABASE_URL,
      schema: randomSchema(),
      poolSize: 3,
    });
    try {
      const scopes = Array.from({ length: 16 }, () => freshScope());
      const tricky = (i: number) => `nul \u0000 "q" \\ 🧪 ${i}`;
      for (const scope of scopes) {
        await own.transact(scope, () => ({ todos: list("before"), log: [entry(0)], result: 0 }));
      }
      await Promise.all(
        scopes.map((scope, i) =>
          own.transact(scope, (snap) =>
            i % 2 === 0
              ? { todos: list(tricky(i)), log: [entry(i)], result: 0 }
              : { state: { ...snap.state, stopped: true }, result: 0 },
          ),
        ),
      );
      expect(own.contention().splitBatches).toBe(0);
      for (const [i, scope] of scopes.entries()) {
        const snap = await own.read(scope);
        const log = (await own.readLog(scope)).map((e) => e.at);
        if (i % 2 === 0) {
          expect([snap.todos.todos[0]?.content, snap.todosRevision, snap.stateRevision]).toEqual([
            tricky(i),
            2,
            0,
          ]);
          expect(log).toEqual([0, i]);
        } else {
          expect([snap.todos.todos[0]?.content, snap.state.stopped, snap.todosRevision]).toEqual([
            "before",
            true,
            1,
          ]);
          expect(log).toEqual([0]);
        }
      }
    } finally {
      await own.close();
      await dropSchema(own.schema);
    }
  });

  it("fails only the bad write of a batch; the others land", async () => {
    const own = createPostgresStore({
      connectionString: TEST_DATABASE_URL,
      schema: randomSchema(),
      poolSize: 4,
    });
    try {
      const scopes = Array.from({ length: 12 }, () => freshScope());
      for (const scope of scopes)
        await own.transact(scope, () => ({ todos: list("a"), result: 0 }));
      // A rule the store does not know about, standing in for any per-row failure.
      await sql(
        `ALTER TABLE "${own.schema}".scopes ADD CONSTRAINT no_poison CHECK (todos::text NOT LIKE '%poison%')`,
      );
      const settled = await Promise.allSettled(
        scopes.map((scope, i) =>
          own.transact(scope, () => ({ todos: list(i === 5 ? "poison" : "b"), result: i })),
        ),
      );
      expect(own.contention().splitBatches).toBeGreaterThanOrEqual(1);
      expect(settled.map((s) => s.status)).toEqual(
        scopes.map((_, i) => (i === 5 ? "rejected" : "fulfilled")),
      );
      const lists = await Promise.all(scopes.map((scope) => own.read(scope)));
      expect(lists.map((snap) => snap.todos.todos[0]?.content)).toEqual(
        scopes.map((_, i) => (i === 5 ? "a" : "b")),
      );
    } finally {
      await own.close();
      await dropSchema(own.schema);
    }
  });

  it("rejects a malformed result naming the field, writing neither document", async () => {
    const scope = freshScope();
    await store.transact(scope, () => ({ todos: list("keep"), result: null }));
    await expect(
      store.transact(scope, () => ({
        todos: list("lost?"),
        state: { nope: true } as never,
        result: null,
      })),
    ).rejects.toThrow("result.state");
    await expect(
      store.transact(scope, () => ({
        todos: list("lost?"),
        state: { ...emptyState(), reminders: [{ kind: "custom", text: "x", at: 10n }] } as never,
        result: null,
      })),
    ).rejects.toThrow(/BigInt/);
    await expect(store.transact(scope, (async () => ({ result: null })) as never)).rejects.toThrow(
      "synchronous",
    );
    const snap = await store.read(scope);
    expect(snap.todos.todos.map((t) => t.content)).toEqual(["keep"]);
    expect(snap.stateRevision).toBe(0);
  });

  it("never writes a stale read back over a scope deleted and re-created meanwhile", async () => {
    const scope = freshScope();
    await store.transact(scope, () => ({ todos: list("old"), result: null }));
    const seen: string[][] = [];
    await store.transact(scope, (snap) => {
      seen.push(snap.todos.todos.map((t) => t.content));
      if (seen.length === 1) {
        // Another writer, between this transaction's read and its write: the scope is
        // deleted and re-created at the same revisions.
        psql(
          `DELETE FROM "${schema}".scopes WHERE key = '${scope.key}';
           INSERT INTO "${schema}".scopes (key, kind, todos, todos_revision, state, version)
           VALUES ('${scope.key}', 'session', '${JSON.stringify(list("fresh"))}', 1, '{}',
                   nextval('"${schema}".write_token'));`,
        );
      }
      return { todos: list(...snap.todos.todos.map((t) => t.content), "added"), result: null };
    });
    expect(seen).toEqual([["old"], ["fresh"]]);
    expect((await store.read(scope)).todos.todos.map((t) => t.content)).toEqual(["fresh", "added"]);
  });

  it("starts from empty documents when the scope was deleted during the transaction", async () => {
    const scope = freshScope();
    await store.transact(scope, () => ({ todos: list("old"), result: null }));
    let calls = 0;
    await store.transact(scope, (snap) => {
      calls++;
      if (calls === 1) psql(`DELETE FROM "${schema}".scopes WHERE key = '${scope.key}'`);
      return { todos: list(...snap.todos.todos.map((t) => t.content), "added"), result: null };
    });
    expect(calls).toBe(2);
    const snap = await store.read(scope);
    expect(snap.todos.todos.map((t) => t.content)).toEqual(["added"]);
    expect(snap.todosRevision).toBe(1);
  });
});

describe("PostgresStore: decision log", () => {
  it("keeps the newest logLimit entries, oldest first", async () => {
    const scope = freshScope();
    for (let at = 1; at <= 4; at++) {
      await store.transact(scope, () => ({ log: [entry(at * 10), entry(at * 10 + 1)], result: 0 }));
    }
    const log = await store.readLog(scope);
    expect(log.map((e) => e.at)).toEqual([21, 30, 31, 40, 41]);
    expect((await store.readLog(scope, 2)).map((e) => e.at)).toEqual([40, 41]);
    expect(await store.readLog(scope, 0)).toEqual([]);
  });

  it("keeps only the last logLimit entries of one oversized batch", async () => {
    const scope = freshScope();
    await store.transact(scope, () => ({
      log: Array.from({ length: 9 }, (_, i) => entry(i)),
      result: 0,
    }));
    expect((await store.readLog(scope)).map((e) => e.at)).toEqual([4, 5, 6, 7, 8]);
  });

  it("keeps the table within logLimit + TRIM_STEP entries per scope", async () => {
    const scope = freshScope();
    for (let at = 0; at < 100; at++) {
      await store.transact(scope, () => ({ log: [entry(at)], result: 0 }));
    }
    const [row] = await sql<{ n: string }>(
      `SELECT count(*)::text AS n FROM "${schema}".decision_log WHERE scope_key = $1`,
      [scope.key],
    );
    expect(Number(row?.n)).toBeGreaterThanOrEqual(5);
    expect(Number(row?.n)).toBeLessThan(5 + TRIM_STEP);
    expect((await store.readLog(scope)).map((e) => e.at)).toEqual([95, 96, 97, 98, 99]);
  });

  it("starts a clean log when a scope row was deleted by hand, leaving its entries", async () => {
    const scope = freshScope();
    await store.transact(scope, () => ({ log: [entry(1), entry(2)], result: 0 }));
    await sql(`DELETE FROM "${schema}".scopes WHERE key = $1`, [scope.key]);
    await store.transact(scope, () => ({ todos: list("again"), log: [entry(3)], result: 0 }));
    expect((await store.readLog(scope)).map((e) => e.at)).toEqual([3]);
    await store.transact(scope, () => ({ log: [entry(4)], result: 0 }));
    expect((await store.readLog(scope)).map((e) => e.at)).toEqual([3, 4]);
  });

  it("round-trips optional fields and rejects a bad limit", async () => {
    const scope = freshScope();
    const inject = entry(5, {
      action: "inject",
      reason: null,
      episodeId: "ep-1",
      nudgeChars: 120,
      nudgeTokens: 30,
      delivered: true,
      note: "first",
    });
    await store.transact(scope, () => ({ log: [inject], result: 0 }));
    expect(await store.readLog(scope)).toEqual([inject]);
    await expect(store.readLog(scope, -1)).rejects.toThrow("limit");
  });
});

describe("PostgresStore: scopes", () => {
  it("lists only rows whose key is a valid scope key", async () => {
    const own = createPostgresStore({
      connectionString: TEST_DATABASE_URL,
      schema: randomSchema(),
    });
    try {
      const scope = freshScope();
      await own.transact(scope, () => ({ todos: list("a"), result: 0 }));
      await sql(
        `INSERT INTO "${own.schema}".scopes (key, kind, todos, state, version) VALUES ('../x', 'tui', '{}', '{}', 0)`,
      );
      expect(await own.listScopes()).toEqual([scope]);
    } finally {
      await own.close();
      await dropSchema(own.schema);
    }
  });
});

describe("PostgresStore: fail-closed reads", () => {
  it("reads hand-corrupted documents as empty (the state as untrusted) and drops bad log entries", async () => {
    const scope = freshScope();
    await store.transact(scope, () => ({
      todos: list("a"),
      state: { ...emptyState(), stopped: true },
      log: [entry(1), entry(2)],
      result: 0,
    }));
    await sql(
      `UPDATE "${schema}".scopes SET todos = '{"todos": 5}', state = '"junk"' WHERE key = $1`,
      [scope.key],
    );
    await sql(
      `UPDATE "${schema}".decision_log SET entry = '{"at": -1}' WHERE scope_key = $1 AND seq = 1`,
      [scope.key],
    );
    const snap = await store.read(scope);
    expect(snap.todos).toEqual(emptyList());
    expect(snap.state).toEqual({ ...emptyState(), untrusted: true });
    expect((await store.readLog(scope)).map((e) => e.at)).toEqual([2]);
  });

  it("keeps the good items of a partly corrupt list", async () => {
    const scope = freshScope();
    await store.transact(scope, () => ({ todos: list("a", "b"), result: 0 }));
    await sql(
      `UPDATE "${schema}".scopes SET todos = '{"todos":[{"content":"a","status":"pending"},{"content":"b","status":"bogus"}],"phases":[],"nextId":1}' WHERE key = $1`,
      [scope.key],
    );
    expect((await store.read(scope)).todos.todos.map((t) => t.content)).toEqual(["a"]);
  });
});

describe("PostgresStore: lifecycle and connection errors", () => {
  it("names the host and port when PostgreSQL is unreachable", async () => {
    const down = createPostgresStore({
      connectionString: "postgres://someone:secret@127.0.0.1:1/test",
      schema: randomSchema(),
      connectTimeoutMs: 2_000,
    });
    try {
      const failure = await down.read(freshScope()).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(PostgresUnavailableError);
      const message = (failure as Error).message;
      expect(message).toContain("127.0.0.1:1");
      expect(message).toContain("ECONNREFUSED");
      expect(message).not.toContain("secret");
    } finally {
      await down.close();
    }
  });

  it("names the database when it does not exist", async () => {
    const missing = createPostgresStore({
      connectionString: TEST_DATABASE_URL.replace(/\/test$/, "/tc_no_such_database"),
      schema: randomSchema(),
    });
    try {
      await expect(missing.ready()).rejects.toThrow(
        /database "tc_no_such_database" does not exist/,
      );
    } finally {
      await missing.close();
    }
  });
});
