import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { DecisionLogEntry, Scope, ScopeScan } from "../../core/types.js";
import { scanScopes } from "../scan.js";
import { createPostgresStore, type PostgresStore } from "./postgres-store.js";
import { dropSchema, randomSchema, sql, TEST_DATABASE_URL } from "./test-support/database.js";

const SCOPES = 300;
const LOG_LIMIT = 8;
const schema = randomSchema();
let pool: pg.Pool;
let store: PostgresStore;
let queries: string[] = [];

function session(i: number): Scope {
  return resolveScope({ kind: "session", host: "test", sessionId: `s-${i}` })!;
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

async function collect(iterable: AsyncIterable<ScopeScan[]>): Promise<ScopeScan[]> {
  const out: ScopeScan[] = [];
  for await (const batch of iterable) out.push(...batch);
  return out;
}

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 4 });
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  // Counts what the store sends, to show a scan costs a query per batch, not per scope.
  (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
    const config = args[0] as { name?: string } | string;
    queries.push(typeof config === "string" ? config : (config.name ?? "?"));
    return query(...args);
  };
  store = createPostgresStore({ pool, schema, logLimit: LOG_LIMIT });
  for (let i = 0; i < SCOPES; i++) {
    await store.transact(session(i), () => ({
      todos: { todos: [{ content: `item ${i}`, status: "pending" }], phases: [], nextId: 1 },
      log: Array.from({ length: i % 12 }, (_, n) => entry(i * 100 + n)),
      result: null,
    }));
  }
  // Hand edits: a list that is no list, a log line that is no entry, a row with a bad key.
  await sql(`UPDATE "${schema}".scopes SET todos = '{"todos": 5}' WHERE key = $1`, [
    session(1).key,
  ]);
  await sql(
    `INSERT INTO "${schema}".decision_log (scope_key, seq, entry) VALUES ($1, 1000, '{"no":1}')`,
    [session(11).key],
  );
  await sql(
    `INSERT INTO "${schema}".scopes (key, kind, todos, state, version) VALUES ('session/../x', 'session', '{}', '{}', 1)`,
  );
});

afterAll(async () => {
  await store.close();
  await pool.end();
  await dropSchema(schema);
});

describe("PostgresStore scan", () => {
  it("gives every scope what read and readLog give, in one query per batch", async () => {
    for (const tail of [0, 1, 3, 100]) {
      queries = [];
      const scanned = await collect(scanScopes(store, { logTail: tail, batchSize: 128 }));
      const scans = queries.filter((name) => name.endsWith("scan")).length;
      expect(scans).toBe(Math.ceil(SCOPES / 128));
      expect(queries.length).toBe(scans + 1); // and the listing
      expect(scanned.map((s) => s.scope)).toEqual(await store.listScopes());
      expect(scanned).toHaveLength(SCOPES);
      for (const item of scanned) {
        if (!item.ok) throw item.error;
        expect(item.snapshot).toEqual(await store.read(item.scope));
        expect(item.log).toEqual(await store.readLog(item.scope, tail));
        expect(item.problems).toEqual([]);
        expect(item.exists).toBe(true);
      }
    }
  });

  it("reads given scopes in order, says which hold nothing, and refuses a forged one alone", async () => {
    const forged = { key: "../x", kind: "session" } as unknown as Scope;
    const items = await collect(
      scanScopes(store, { scopes: [session(5), session(99_999), forged, session(5)], logTail: 2 }),
    );
    expect(items.map((i) => i.scope.key)).toEqual([session(5).key, session(99_999).key, "../x"]);
    expect(items[0]!.ok && items[0]!.exists).toBe(true);
    expect(items[1]!.ok && items[1]!.exists).toBe(false);
    expect(items[2]!.ok).toBe(false);
    expect(items[0]!.ok && items[0]!.log.map((e) => e.at)).toEqual([503, 504]);
  });
});
