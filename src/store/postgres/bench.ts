import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import {
  benchList,
  benchScope,
  type ParentMessage,
  RAW_TABLE,
  type WorkerMessage,
  type WorkerReport,
} from "./bench-shared.js";
import { resolveSchema } from "./options.js";
import { createPostgresStore, type PostgresStore } from "./postgres-store.js";
import { quoteIdentifier } from "./schema.js";

export interface PostgresBenchOptions {
  connectionString: string;
  /** Worker processes deciding at once. */
  workers: number;
  durationMs: number;
  /** Scopes the decisions spread over (default 1,000). */
  scopes?: number;
  /** Concurrent decisions per worker (default 32); the store batches them. */
  lanes?: number;
  /** A schema that does not exist yet, created and dropped by the run (default: a random name). */
  schema?: string;
  /**
   * `store` (default): decisions through the store. `raw`: the baseline, one
   * compare-and-set statement per decision on a bare table (see the worker).
   */
  mode?: "store" | "raw";
}

export interface PostgresBenchResult {
  decisionsPerSecond: number;
  decisions: number;
  injections: number;
  workers: number;
  lanes: number;
  scopes: number;
  elapsedMs: number;
  /** Compare-and-set losses that re-ran a decision, and transactions that took the row lock. */
  conflicts: number;
  lockedFallbacks: number;
  /** Log entries appended per the database: equals `decisions` when none was lost. */
  loggedDecisions: number;
}

// Built worker (dist/store/postgres/bench-worker.js) beside this module.
const WORKER = fileURLToPath(new URL("./bench-worker.js", import.meta.url));

async function seed(store: PostgresStore, scopes: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < scopes; i = next++) {
      await store.transact(benchScope(i), () => ({ todos: benchList(i), result: null }));
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
}

/** The baseline's table, one row per scope at revision 0. */
async function seedRaw(connectionString: string, schema: string, scopes: number): Promise<void> {
  const table = `${quoteIdentifier(schema)}.${RAW_TABLE}`;
  await adminQuery(
    connectionString,
    `CREATE TABLE ${table} (key text PRIMARY KEY, rev integer NOT NULL, doc jsonb NOT NULL)`,
  );
  const keys = Array.from({ length: scopes }, (_, i) => benchScope(i).key);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO ${table} (key, rev, doc) SELECT k, 0, '{}'::jsonb FROM unnest($1::text[]) AS k`,
      [keys],
    );
  } finally {
    await client.end();
  }
}

/** Resolves when the worker has exited on its own, or after killing it if it has not in 10 s. */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill(), 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function positive(field: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${field}: expected a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Forks a worker and resolves once it is connected and waiting for "go". */
function startWorker(
  start: ParentMessage,
  children: ChildProcess[],
): Promise<{ child: ChildProcess; report: Promise<WorkerReport> }> {
  const child = fork(WORKER, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  children.push(child);
  return new Promise((resolveReady, rejectReady) => {
    let ready = false;
    const report = new Promise<WorkerReport>((resolveReport, rejectReport) => {
      const fail = (error: Error) => (ready ? rejectReport(error) : rejectReady(error));
      child.on("message", (message: WorkerMessage) => {
        if (message.type === "ready") {
          ready = true;
          resolveReady({ child, report });
        } else if (message.type === "done") resolveReport(message);
        else fail(new Error(`benchPostgres: a worker failed: ${message.error}`));
      });
      child.on("error", fail);
      child.on("exit", (code) => fail(new Error(`benchPostgres: a worker exited (${code})`)));
    });
    report.catch(() => undefined);
    child.send(start);
  });
}

/**
 * Measures atomic decisions per second on PostgreSQL: `workers` processes,
 * each running `lanes` decisions at a time over `scopes` scopes. A decision is
 * one `transact` that reads both documents, records a turn outcome, runs the
 * engine, and writes the state and one log entry. Runs in a fresh schema that
 * is dropped afterwards.
 */
export async function benchPostgres(options: PostgresBenchOptions): Promise<PostgresBenchResult> {
  const workers = positive("workers", options.workers);
  const durationMs = positive("durationMs", options.durationMs);
  const scopes = positive("scopes", options.scopes ?? 1_000);
  const lanes = positive("lanes", options.lanes ?? 32);
  const mode = options.mode ?? "store";
  if (!existsSync(WORKER)) {
    throw new Error(`benchPostgres: worker script ${WORKER} is missing; run npm run build first`);
  }
  const schema = options.schema ?? `tc_bench_${randomBytes(5).toString("hex")}`;
  // The benchmark drops its schema at the end, so it never runs in one that holds data.
  const existing = await adminQuery(
    options.connectionString,
    `SELECT 1 FROM pg_namespace WHERE nspname = '${resolveSchema(schema)}'`,
  );
  if (existing.length > 0) {
    throw new Error(
      `schema: "${schema}" already exists; the benchmark needs a new one it can drop`,
    );
  }
  const store = createPostgresStore({
    connectionString: options.connectionString,
    schema,
    logLimit: 50,
  });
  const children: ChildProcess[] = [];
  try {
    await store.ready();
    if (mode === "raw") await seedRaw(options.connectionString, schema, scopes);
    else await seed(store, scopes);
    const started = await Promise.all(
      Array.from({ length: workers }, (_, index) =>
        startWorker(
          {
            type: "start",
            index,
            connectionString: options.connectionString,
            schema,
            scopes,
            lanes,
            mode,
          },
          children,
        ),
      ),
    );
    for (const { child } of started) child.send({ type: "go", durationMs } satisfies ParentMessage);
    const reports = await Promise.all(started.map((s) => s.report));
    await Promise.all(children.map((child) => exited(child)));
    const decisions = reports.reduce((sum, r) => sum + r.decisions, 0);
    const elapsedMs = Math.max(...reports.map((r) => r.elapsedMs));
    const [logged] =
      mode === "raw"
        ? await adminQuery<{ logged: string }>(
            options.connectionString,
            `SELECT coalesce(sum(rev), 0)::text AS logged FROM ${quoteIdentifier(schema)}.${RAW_TABLE}`,
          )
        : await adminQuery<{ logged: string }>(
            options.connectionString,
            `SELECT coalesce(sum(log_seq), 0)::text AS logged FROM ${quoteIdentifier(schema)}.scopes`,
          );
    return {
      decisionsPerSecond: Math.round((decisions * 1000) / elapsedMs),
      decisions,
      injections: reports.reduce((sum, r) => sum + r.injections, 0),
      workers,
      lanes,
      scopes,
      elapsedMs,
      conflicts: reports.reduce((sum, r) => sum + r.conflicts, 0),
      lockedFallbacks: reports.reduce((sum, r) => sum + r.lockedFallbacks, 0),
      loggedDecisions: Number(logged?.logged ?? 0),
    };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
    await store.close();
    await adminQuery(
      options.connectionString,
      `DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`,
    ).catch(() => undefined);
  }
}

/** Runs one statement on its own connection (the store exposes no raw SQL). */
async function adminQuery<T extends pg.QueryResultRow>(
  connectionString: string,
  text: string,
): Promise<T[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}
