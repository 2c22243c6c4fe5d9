import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { Scope, TodoList } from "../../core/types.js";
import { PostgresTimeoutError } from "./errors.js";
import { createPostgresStore, type PostgresStore } from "./postgres-store.js";
import { dropSchema, randomSchema, TEST_DATABASE_URL } from "./test-support/database.js";

/**
 * One scope's row locked by another session (a hand query, a stuck client)
 * must neither fail nor stall writes of other scopes in the same burst, and
 * the locked scope's own transaction fails in bounded time, naming it.
 */

const OTHERS = 39;

let schema: string;
let store: PostgresStore;
let holder: pg.Client;
let pool: pg.Pool | null = null;

function scope(n: number): Scope {
  return resolveScope({ kind: "session", host: "test", sessionId: `locked-${n}` })!;
}

function list(content: string): TodoList {
  return { todos: [{ content, status: "pending" }], phases: [], nextId: 1 };
}

/** Writes every scope once, so each has a row; then another session locks scope 0's row. */
async function lockFirstRow(): Promise<void> {
  for (let n = 0; n <= OTHERS; n++) {
    await store.transact(scope(n), () => ({ todos: list("first"), result: null }));
  }
  holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query(`SELECT key FROM "${schema}".scopes WHERE key = $1 FOR UPDATE`, [
    scope(0).key,
  ]);
}

/** A burst: the locked scope and every other one, written at once. */
async function burst(): Promise<PromiseSettledResult<null>[]> {
  return Promise.allSettled(
    Array.from({ length: OTHERS + 1 }, (_, n) =>
      store.transact(scope(n), () => ({ todos: list("second"), result: null })),
    ),
  );
}

beforeEach(() => {
  schema = randomSchema("tc_locked");
});

afterEach(async () => {
  await holder?.query("ROLLBACK").catch(() => undefined);
  await holder?.end().catch(() => undefined);
  await store.close();
  await pool?.end();
  pool = null;
  await dropSchema(schema);
});

describe("a scope row locked by another session", () => {
  it("leaves every other scope's write untouched, and fails its own in bounded time, naming it", async () => {
    store = createPostgresStore({
      connectionString: TEST_DATABASE_URL,
      schema,
      lockTimeoutMs: 300,
    });
    await lockFirstRow();
    const started = Date.now();
    const results = await burst();
    const elapsed = Date.now() - started;
    const [locked, ...others] = results;
    expect(others.filter((r) => r.status === "rejected")).toEqual([]);
    expect(locked?.status).toBe("rejected");
    const error = (locked as PromiseRejectedResult).reason;
    expect(error).toBeInstanceOf(PostgresTimeoutError);
    expect(String(error.message)).toContain(scope(0).key);
    expect(String(error.message)).toContain("55P03");
    expect(elapsed).toBeLessThan(10_000);
    await holder.query("ROLLBACK");
    for (let n = 1; n <= OTHERS; n++) {
      expect((await store.read(scope(n))).todos).toEqual(list("second"));
    }
    expect((await store.read(scope(0))).todos).toEqual(list("first"));
  });

  it("under statement_timeout, reports 57014 as a timeout of that scope, not a dead server", async () => {
    pool = new pg.Pool({
      connectionString: TEST_DATABASE_URL,
      options: "-c statement_timeout=500",
    });
    store = createPostgresStore({ pool, schema, lockTimeoutMs: 60_000 });
    await lockFirstRow();
    const [locked, ...others] = await burst();
    expect(others.filter((r) => r.status === "rejected")).toEqual([]);
    const error = (locked as PromiseRejectedResult).reason as Error;
    expect(error).toBeInstanceOf(PostgresTimeoutError);
    expect(error.message).toContain(scope(0).key);
    expect(error.message).toContain("57014");
    expect(error.message).not.toMatch(/no answer|server is running/);
  });
});
