/**
 * One benchmark worker process (forked by `benchPostgres`). It opens its own
 * store and runs `lanes` concurrent loops of atomic decisions until told time
 * is up, then reports its counts. Not part of the public API.
 */

import pg from "pg";
import { decide } from "../../core/engine/decide.js";
import { decisionLogEntry } from "../../core/engine/log-entry.js";
import { resolveLimits, resolvePreset } from "../../core/engine/presets.js";
import { onRealUserTurn, onTurnOutcome } from "../../core/engine/transitions.js";
import { summarize } from "../../core/todo/summary.js";
import type { Limits, Scope } from "../../core/types.js";
import {
  benchScope,
  type ParentMessage,
  RAW_TABLE,
  WORKER_POOL_SIZE,
  type WorkerMessage,
  type WorkerStart,
} from "./bench-shared.js";
import { createPostgresStore, type PostgresStore } from "./postgres-store.js";
import { quoteIdentifier } from "./schema.js";

/** Every fifth decision on a lane follows a real user turn, so episodes keep reopening. */
const USER_TURN_EVERY = 5;

/**
 * One atomic decision: a turn outcome is recorded and the engine decides, all
 * in one transaction that reads both documents and writes state and log.
 */
async function decideOnce(
  store: PostgresStore,
  scope: Scope,
  limits: Limits,
  turnId: string,
  realUserTurn: boolean,
): Promise<boolean> {
  return store.transact(scope, (snap) => {
    const now = Date.now();
    let state = realUserTurn ? onRealUserTurn(snap.state, now) : snap.state;
    state = onTurnOutcome(state, {
      turnId,
      stopReason: "stop",
      endedAt: now,
      usage: { input: 900, output: 300, cacheRead: 20_000, cacheWrite: 0, total: 21_200 },
      injected: !realUserTurn,
      restartCaused: false,
    });
    const summary = summarize(snap.todos);
    const decision = decide({ state, summary, signals: {}, limits, now });
    const entry = decisionLogEntry(decision, summary, null, "bench", now);
    return { state: decision.state, log: [entry], result: decision.action === "inject" };
  });
}

/**
 * The baseline's decision: one statement that sets the state document only if
 * the row is still at the revision this lane last saw, and returns the
 * revision either way; a lane that saw a stale revision retries with the
 * current one. The least any durable compare-and-set store must do.
 */
function rawDecider(pool: pg.Pool, schema: string, lanes: number) {
  const table = `${quoteIdentifier(schema)}.${RAW_TABLE}`;
  const text =
    `WITH cur AS (SELECT rev FROM ${table} WHERE key = $1), ` +
    `upd AS (UPDATE ${table} SET rev = rev + 1, doc = $3 WHERE key = $1 AND rev = $2 RETURNING rev) ` +
    "SELECT (SELECT rev FROM upd) AS done, (SELECT rev FROM cur) AS now";
  const seen = Array.from({ length: lanes }, () => new Map<string, number>());
  return async (lane: number, scope: Scope, turnId: string): Promise<void> => {
    const known = seen[lane] as Map<string, number>;
    let expected = known.get(scope.key) ?? 0;
    const doc = JSON.stringify({ turnId, at: Date.now() });
    for (;;) {
      const { rows } = await pool.query<{ done: number | null; now: number }>({
        name: "raw-cas",
        text,
        values: [scope.key, expected, doc],
      });
      const row = rows[0];
      if (row?.done != null) {
        known.set(scope.key, row.done);
        return;
      }
      expected = row?.now ?? 0;
    }
  };
}

async function runRaw(start: WorkerStart, send: (message: WorkerMessage) => Promise<void>) {
  const pool = new pg.Pool({
    connectionString: start.connectionString,
    max: WORKER_POOL_SIZE,
  });
  const scopes = Array.from({ length: start.scopes }, (_, i) => benchScope(i));
  const decideRaw = rawDecider(pool, start.schema, start.lanes);
  let report: WorkerMessage;
  try {
    await pool.query("SELECT 1");
    const go = waitForGo();
    await send({ type: "ready" });
    const began = Date.now();
    const deadline = began + (await go);
    let decisions = 0;
    const lane = async (laneIndex: number) => {
      for (let n = 0; Date.now() < deadline; n++) {
        const scope = scopes[Math.floor(Math.random() * scopes.length)] as Scope;
        await decideRaw(laneIndex, scope, `w${start.index}-l${laneIndex}-${n}`);
        decisions++;
      }
    };
    await Promise.all(Array.from({ length: start.lanes }, (_, i) => lane(i)));
    const elapsedMs = Date.now() - began;
    report = {
      type: "done",
      decisions,
      injections: 0,
      elapsedMs,
      conflicts: 0,
      lockedFallbacks: 0,
    };
  } finally {
    await pool.end();
  }
  await send(report);
}

function waitForGo(): Promise<number> {
  return new Promise<number>((resolve) => {
    process.on("message", (message: ParentMessage) => {
      if (message.type === "go") resolve(message.durationMs);
    });
  });
}

async function run(start: WorkerStart, send: (message: WorkerMessage) => Promise<void>) {
  if (start.mode === "raw") return runRaw(start, send);
  const store = createPostgresStore({
    connectionString: start.connectionString,
    schema: start.schema,
    // Two read and two write batches in flight, plus room for first writes.
    poolSize: WORKER_POOL_SIZE,
  });
  const limits = resolveLimits(resolvePreset("default").limits, {});
  const scopes = Array.from({ length: start.scopes }, (_, i) => benchScope(i));
  let report: WorkerMessage;
  try {
    await store.ready();
    const go = waitForGo();
    await send({ type: "ready" });
    const began = Date.now();
    const deadline = began + (await go);
    let decisions = 0;
    let injections = 0;
    const lane = async (laneIndex: number) => {
      for (let n = 0; Date.now() < deadline; n++) {
        const scope = scopes[Math.floor(Math.random() * scopes.length)]!;
        const turnId = `w${start.index}-l${laneIndex}-${n}`;
        if (await decideOnce(store, scope, limits, turnId, n % USER_TURN_EVERY === 0)) {
          injections++;
        }
        decisions++;
      }
    };
    await Promise.all(Array.from({ length: start.lanes }, (_, i) => lane(i)));
    const elapsedMs = Date.now() - began;
    const { conflicts, lockedFallbacks } = store.contention();
    report = { type: "done", decisions, injections, elapsedMs, conflicts, lockedFallbacks };
  } finally {
    await store.close();
  }
  await send(report);
}

if (process.send !== undefined) {
  const send = (message: WorkerMessage) =>
    new Promise<void>((resolve) => {
      process.send?.(message, () => resolve());
    });
  process.once("message", (message: ParentMessage) => {
    if (message.type !== "start") return;
    run(message, send).then(
      () => process.disconnect(),
      async (error: unknown) => {
        process.exitCode = 1;
        await send({
          type: "failed",
          error: error instanceof Error ? error.message : String(error),
        });
        process.disconnect();
      },
    );
  });
}
