import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import { assertBuilt, BUILT_DIST } from "../../test-support/built.js";
import { createPostgresStore } from "./postgres-store.js";
import { dropSchema, randomSchema, TEST_DATABASE_URL } from "./test-support/database.js";

const WORKERS = 8;
const SCOPES = 1_000;
const ROUNDS = 2;
const LANES = 16;
const WORKER_SCRIPT = fileURLToPath(new URL("./test-support/race-worker.mjs", import.meta.url));

interface RoundDone {
  type: "round-done";
  round: number;
  inject: number;
  skips: Record<string, number>;
}
type WorkerMessage = { type: "ready" } | RoundDone | { type: "failed"; error: string };

/** A forked worker with a queue of the messages it sent. */
class Worker {
  readonly child: ChildProcess;
  readonly #waiting: ((message: WorkerMessage) => void)[] = [];
  readonly #inbox: WorkerMessage[] = [];

  constructor(index: number, schema: string) {
    this.child = fork(
      WORKER_SCRIPT,
      [
        BUILT_DIST,
        TEST_DATABASE_URL,
        schema,
        String(index),
        String(WORKERS),
        String(SCOPES),
        String(LANES),
      ],
      { stdio: ["ignore", "inherit", "inherit", "ipc"] },
    );
    this.child.on("message", (message: WorkerMessage) => {
      const waiter = this.#waiting.shift();
      if (waiter) waiter(message);
      else this.#inbox.push(message);
    });
  }

  next(): Promise<WorkerMessage> {
    const queued = this.#inbox.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      this.#waiting.push(resolve);
      this.child.once("exit", (code) => reject(new Error(`worker exited with ${code}`)));
    });
  }
}

const scopeFor = (i: number) =>
  resolveScope({ kind: "session", host: "race", sessionId: `scope-${i}` })!;

describe("PostgresStore across worker processes", () => {
  const schema = randomSchema("tc_race");
  const workers: Worker[] = [];

  beforeAll(() => {
    assertBuilt("store/postgres/index.js", "runtime/index.js", "core/dialects/index.js");
  });

  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill();
    await dropSchema(schema);
  });

  it("keeps every todo update and nudges exactly once per eligible idle (8 processes, 1,000 scopes)", async () => {
    for (let i = 0; i < WORKERS; i++) workers.push(new Worker(i, schema));
    for (const worker of workers) expect((await worker.next()).type).toBe("ready");

    const injectsPerRound: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const worker of workers) worker.child.send({ type: "round", round });
      const reports = await Promise.all(workers.map((w) => w.next()));
      for (const report of reports) {
        if (report.type === "failed") throw new Error(report.error);
      }
      const done = reports as RoundDone[];
      injectsPerRound.push(done.reduce((sum, r) => sum + r.inject, 0));
      // Every idle that did not nudge skipped because its turn was already answered
      // (or not yet recorded): never for a reason that would hide a lost update.
      const reasons = new Set(done.flatMap((r) => Object.keys(r.skips)));
      expect([...reasons]).toEqual(["turn-not-safe"]);
    }
    for (const worker of workers) worker.child.send({ type: "exit" });

    // Exactly one nudge per scope and round, as the workers saw it...
    expect(injectsPerRound).toEqual(Array(ROUNDS).fill(SCOPES));

    // ...and as the database recorded it.
    const store = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
    try {
      const expectedTodos = Array.from({ length: WORKERS }, (_, w) =>
        Array.from({ length: ROUNDS }, (_, r) => `w${w} r${r}`),
      )
        .flat()
        .sort();
      let wrongLists = 0;
      let wrongLogs = 0;
      for (let i = 0; i < SCOPES; i++) {
        const scope = scopeFor(i);
        const snapshot = await store.read(scope);
        const contents = snapshot.todos.todos.map((t) => t.content).sort();
        if (JSON.stringify(contents) !== JSON.stringify(expectedTodos)) wrongLists++;
        const log = await store.readLog(scope);
        const injects = log.filter((e) => e.action === "inject").length;
        const decisions = log.filter((e) => e.trigger === "race").length;
        if (injects !== ROUNDS || decisions !== WORKERS * ROUNDS) wrongLogs++;
      }
      expect({ wrongLists, wrongLogs }).toEqual({ wrongLists: 0, wrongLogs: 0 });
      expect(await store.listScopes()).toHaveLength(SCOPES);
    } finally {
      await store.close();
    }
  }, 600_000);
});
