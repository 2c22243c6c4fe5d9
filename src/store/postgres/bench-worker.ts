/**
 * One benchmark worker process (forked by `benchPostgres`). It opens its own
 * store and runs `lanes` concurrent loops of atomic decisions until told time
 * is up, then reports its counts. Not part of the public API.
 */
import { decide } from "../../core/engine/decide.js";
import { resolveLimits, resolvePreset } from "../../core/engine/presets.js";
import { onRealUserTurn, onTurnOutcome } from "../../core/engine/transitions.js";
import { summarize } from "../../core/todo/summary.js";
import type { Limits, Scope } from "../../core/types.js";
import { decisionLogEntry } from "../../runtime/runtime.js";
import {
  benchScope,
  type ParentMessage,
  type WorkerMessage,
  type WorkerStart,
} from "./bench-shared.js";
import { createPostgresStore, type PostgresStore } from "./postgres-store.js";

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

async function run(start: WorkerStart, send: (message: WorkerMessage) => Promise<void>) {
  const store = createPostgresStore({
    connectionString: start.connectionString,
    schema: start.schema,
    // Two read and two write batches in flight, plus room for first writes.
    poolSize: 6,
  });
  const limits = resolveLimits(resolvePreset("default").limits, {});
  const scopes = Array.from({ length: start.scopes }, (_, i) => benchScope(i));
  let report: WorkerMessage;
  try {
    await store.ready();
    const go = new Promise<number>((resolve) => {
      process.on("message", (message: ParentMessage) => {
        if (message.type === "go") resolve(message.durationMs);
      });
    });
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
