import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import { resolveScope } from "../../core/scope/scope.js";
import type { DecisionLogEntry } from "../../core/types.js";
import { assertBuilt, BUILT_DIST } from "../../test-support/built.js";
import { createPostgresStore } from "./postgres-store.js";
import { dropSchema, randomSchema, sql, TEST_DATABASE_URL } from "./test-support/database.js";

/**
 * A decision's state and its log entries are one statement, so one
 * transaction: a failure or a kill at any moment keeps both or neither.
 */

const WORKER = join(import.meta.dirname, "..", "file", "test-support", "crash-worker.mjs");
const SCOPE = resolveScope({ kind: "cron", jobId: "crash" })!;
const schemas: string[] = [];

afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

function entry(at: number): DecisionLogEntry {
  return {
    at,
    action: "inject",
    reason: null,
    episodeId: "e",
    autoTurns: at,
    tokens: 0,
    stagnation: 0,
    actionable: 1,
    blocked: 0,
    nudgeChars: 10,
    nudgeTokens: 3,
    trigger: "idle",
  };
}

describe("PostgreSQL: a decision's state and log commit together", () => {
  it("a log insert the server refuses leaves the state as it was", async () => {
    const schema = randomSchema();
    schemas.push(schema);
    const store = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
    try {
      await store.transact(SCOPE, () => ({ state: emptyState(), log: [entry(1)], result: null }));
      await sql(`CREATE FUNCTION "${schema}".refuse() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'log refused for the test'; END $$`);
      await sql(`CREATE TRIGGER refuse BEFORE INSERT ON "${schema}".decision_log
        FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse()`);
      await expect(
        store.transact(SCOPE, () => ({
          state: { ...emptyState(), stopped: true },
          log: [entry(2)],
          result: null,
        })),
      ).rejects.toThrow(/log refused for the test/);
      const snapshot = await store.read(SCOPE);
      expect(snapshot.state.stopped).toBe(false);
      expect(snapshot.stateRevision).toBe(1);
      expect(await store.readLog(SCOPE)).toEqual([entry(1)]);
    } finally {
      await store.close();
    }
  });

  it("a worker killed at random moments never leaves a nudge logged without its state", async () => {
    assertBuilt("store/postgres/index.js", "runtime/index.js");
    const schema = randomSchema();
    schemas.push(schema);
    // Far above what 12 short runs write: a trimmed log would hide the early nudges the check compares.
    const logLimit = 1_000_000;
    const store = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema, logLimit });
    try {
      await store.transact(SCOPE, () => ({
        todos: { todos: [{ content: "work", status: "pending" }], phases: [], nextId: 1 },
        result: null,
      }));
      let kills = 0;
      for (let round = 0; round < 12; round++) {
        const exit = await runWorker(schema, logLimit, 20 + Math.random() * 200);
        if (exit === "SIGKILL") kills++;
        const { state } = await store.read(SCOPE);
        const nudges = (await store.readLog(SCOPE))
          .filter((e) => e.action === "inject" && e.episodeId === state.episode?.id)
          .map((e) => e.autoTurns);
        const count = state.episode?.autoTurns ?? 0;
        expect(nudges).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      }
      expect(kills).toBeGreaterThan(0);
      expect((await store.read(SCOPE)).state.episode?.autoTurns ?? 0).toBeGreaterThan(12);
    } finally {
      await store.close();
    }
  });
});

function runWorker(schema: string, logLimit: number, killAfterMs: number): Promise<string | null> {
  const child = spawn(
    process.execPath,
    [WORKER, BUILT_DIST, TEST_DATABASE_URL, String(logLimit), "100000", "0", schema],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  let timer: NodeJS.Timeout | undefined;
  child.stdout.once("data", () => {
    timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  });
  return new Promise((resolve) => {
    child.on("exit", (_code, signal) => {
      clearTimeout(timer);
      resolve(signal);
    });
  });
}
