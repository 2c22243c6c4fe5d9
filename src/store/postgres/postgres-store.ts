import type { Pool, PoolClient, QueryResult, QueryResultRow } from "pg";
import pg from "pg";
import { assertScope, parseScopeKey } from "../../core/scope/scope.js";
import type {
  DecisionLogEntry,
  ScanOptions,
  Scope,
  ScopeScan,
  ScopeSnapshot,
  Store,
  TransactionResult,
} from "../../core/types.js";
import { checkScanOptions, DEFAULT_SCAN_BATCH, scopesToScan, tailOf } from "../scan.js";
import { Batcher, type Settled } from "./batcher.js";
import { explainConnectionError, explainTimeout, PostgresUnavailableError } from "./errors.js";
import { parseLogEntryText } from "./log-entry.js";
import {
  type ConnectionTarget,
  describeTarget,
  type PostgresStoreOptions,
  type ResolvedOptions,
  resolveOptions,
} from "./options.js";
import { pruneRows, type RowPruneOutcome, restoreRows, type ScopeRows } from "./prune.js";
import { type ScanRow, scanFromRow } from "./scan.js";
import { migrateSchema } from "./schema.js";
import {
  emptySnapshot,
  type PreparedWrite,
  prepareWrite,
  readRow,
  runCallback,
  type ScopeRow,
} from "./snapshot.js";
import { type StatementName, Statements } from "./statements.js";
import { withTransaction } from "./transaction.js";

/** Compare-and-set attempts before a transaction falls back to a row lock. */
const OPTIMISTIC_ATTEMPTS = 3;

/** Locked attempts; only a scope deleted between insert and lock costs one. */
const LOCKED_ATTEMPTS = 5;

/** A compare-and-set write waiting for its batch. */
interface UpdateItem {
  key: string;
  version: string;
  write: PreparedWrite;
}

/** Largest batch of reads or writes sent as one statement. */
const MAX_BATCH = 64;

/** Batches of each kind (reads, writes) running at once. */
const MAX_BATCHES_IN_FLIGHT = 2;

export interface ContentionStats {
  /** Writes that lost a compare-and-set and re-ran their callback. */
  conflicts: number;
  /** Transactions that gave up on compare-and-set and took the row lock. */
  lockedFallbacks: number;
  /** Batched writes that failed as a whole and were retried one by one. */
  splitBatches: number;
}

function byKey(a: Scope, b: Scope): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * The PostgreSQL store: every scope is one row holding both documents, their
 * revisions and a write token; the decision log is a table beside it.
 *
 * `transact` is optimistic: read the row, run the callback, then write with a
 * compare-and-set on the write token in a single statement that also appends
 * and trims the log. A lost race re-runs the callback on fresh data; after a
 * few losses the transaction takes the row lock (SELECT ... FOR UPDATE) so a
 * hot scope still makes progress. One round trip per read, two per write, no
 * lock held while a callback runs on the optimistic path, and concurrent
 * reads and writes of one process share statements (see `Batcher`).
 */
export class PostgresStore implements Store {
  readonly schema: string;
  readonly logLimit: number;
  readonly lockTimeoutMs: number;
  readonly target: ConnectionTarget;
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #statements: Statements;
  readonly #stats: ContentionStats = { conflicts: 0, lockedFallbacks: 0, splitBatches: 0 };
  readonly #reads: Batcher<string, ScopeRow | undefined>;
  readonly #writes: Batcher<UpdateItem, boolean>;
  #ready: Promise<void> | null = null;
  #closed = false;

  constructor(options: ResolvedOptions) {
    this.schema = options.schema;
    this.logLimit = options.logLimit;
    this.lockTimeoutMs = options.lockTimeoutMs;
    this.target = describeTarget(options.connectionString, options.pool);
    this.#statements = new Statements(options.schema);
    if (options.pool !== null) {
      this.#pool = options.pool;
      this.#ownsPool = false;
    } else {
      this.#pool = new pg.Pool({
        connectionString: options.connectionString ?? undefined,
        max: options.poolSize,
        connectionTimeoutMillis: options.connectTimeoutMs,
        application_name: "todo-continuation",
      });
      // An idle connection dropped by the server is replaced on next use; without
      // a listener the pool's "error" event would end the process.
      this.#pool.on("error", () => undefined);
      this.#ownsPool = true;
    }
    // At most two batches of reads and two of writes at a time: requests that
    // arrive meanwhile share the next batch, which is what keeps round trips and
    // commits per decision low under load. The rest of the pool serves first
    // writes, locked transactions and the log.
    const maxInFlight = Math.max(
      1,
      Math.min(MAX_BATCHES_IN_FLIGHT, Math.floor(options.poolSize / 3)),
    );
    this.#reads = new Batcher((keys) => this.#readBatch(keys), {
      maxInFlight,
      maxBatch: MAX_BATCH,
    });
    this.#writes = new Batcher((items) => this.#writeBatch(items), {
      maxInFlight,
      maxBatch: MAX_BATCH,
      keyOf: (item) => item.key,
    });
  }

  /** Conflict counters since the store was created (for tuning and benchmarks). */
  contention(): ContentionStats {
    return { ...this.#stats };
  }

  /** Connects and creates or migrates the schema; every other method does this on first use. */
  ready(): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closedError());
    if (this.#ready === null) {
      this.#ready = migrateSchema(this.#pool, this.schema).then(
        () => undefined,
        (error: unknown) => {
          this.#ready = null;
          throw this.#translate(error);
        },
      );
    }
    return this.#ready;
  }

  async read(scope: Scope): Promise<ScopeSnapshot> {
    assertScope(scope);
    await this.ready();
    return readRow(await this.#reads.submit(scope.key)).snapshot;
  }

  async transact<R>(
    scope: Scope,
    fn: (snapshot: ScopeSnapshot) => TransactionResult<R>,
  ): Promise<R> {
    assertScope(scope);
    if (typeof fn !== "function") throw new TypeError("transact: fn must be a function");
    await this.ready();
    try {
      return await this.#transact(scope, fn);
    } catch (error) {
      throw explainTimeout(error, scope.key);
    }
  }

  async #transact<R>(
    scope: Scope,
    fn: (snapshot: ScopeSnapshot) => TransactionResult<R>,
  ): Promise<R> {
    for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      const { snapshot, version } = readRow(await this.#reads.submit(scope.key));
      const out = runCallback(fn, snapshot);
      const write = prepareWrite(out, this.logLimit);
      if (write === null) return out.result;
      const written =
        version === null
          ? (
              await this.#query(this.#pool, "insert", [
                scope.key,
                scope.kind,
                write.todos ?? JSON.stringify(snapshot.todos),
                write.todos === null ? 0 : 1,
                write.state ?? JSON.stringify(snapshot.state),
                write.state === null ? 0 : 1,
                write.logCount,
                write.log,
              ])
            ).rowCount === 1
          : await this.#writes.submit({ key: scope.key, version, write });
      if (written) return out.result;
      this.#stats.conflicts++;
    }
    this.#stats.lockedFallbacks++;
    return this.#transactLocked(scope, fn);
  }

  async listScopes(): Promise<Scope[]> {
    await this.ready();
    const result = await this.#query<{ key: string }>(this.#pool, "listScopes", []);
    // Keys are re-checked: a row inserted by hand with a bad key is not a scope.
    const scopes: Scope[] = [];
    for (const row of result.rows) {
      const scope = parseScopeKey(row.key);
      if (scope !== null) scopes.push(scope);
    }
    return scopes.sort(byKey);
  }

  scan(options: ScanOptions = {}): AsyncIterable<ScopeScan[]> {
    checkScanOptions(options);
    return this.#scan(options);
  }

  /**
   * One query per batch for the documents and log tails of all its scopes.
   * The next batch's query is sent before this one is handed over, so the
   * database works on it while the caller reads the rows it has.
   */
  async *#scan(options: ScanOptions): AsyncGenerator<ScopeScan[]> {
    const scopes = await scopesToScan(this, options);
    const size = options.batchSize ?? DEFAULT_SCAN_BATCH;
    const fetchBatch = async (batch: Scope[]): Promise<ScopeScan[]> => {
      const wanted: { scope: Scope; tail: number }[] = [];
      const refused = new Map<Scope, Error>();
      for (const scope of batch) {
        try {
          assertScope(scope);
          wanted.push({ scope, tail: Math.min(tailOf(options, scope), this.logLimit) });
        } catch (error) {
          refused.set(scope, error instanceof Error ? error : new Error(String(error)));
        }
      }
      const rows = new Map<string, ScanRow>();
      if (wanted.length > 0) {
        await this.ready();
        const result = await this.#query<ScanRow>(this.#pool, "scan", [
          wanted.map((w) => w.scope.key),
          wanted.map((w) => w.tail),
        ]);
        for (const row of result.rows) rows.set(row.key, row);
      }
      return batch.map((scope): ScopeScan => {
        const error = refused.get(scope);
        return error !== undefined
          ? { scope, ok: false, error }
          : scanFromRow(scope, rows.get(scope.key));
      });
    };
    const ahead = (start: number): Promise<ScopeScan[]> | null => {
      if (start >= scopes.length) return null;
      const pending = fetchBatch(scopes.slice(start, start + size));
      // Awaited below; a caller that stops early leaves it unawaited, and its failure unreported.
      pending.catch(() => {});
      return pending;
    };
    let next = ahead(0);
    for (let start = 0; next !== null; start += size) {
      options.signal?.throwIfAborted();
      const current = next;
      next = ahead(start + size);
      yield await current;
    }
  }

  async readLog(scope: Scope, limit?: number): Promise<DecisionLogEntry[]> {
    assertScope(scope);
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw new TypeError(`limit: expected a non-negative integer, got ${JSON.stringify(limit)}`);
    }
    await this.ready();
    // Trimming runs in steps, so the table may hold a few entries past the limit.
    const result = await this.#query<{ entry: string }>(this.#pool, "readLog", [
      scope.key,
      Math.min(limit ?? this.logLimit, this.logLimit),
    ]);
    const entries: DecisionLogEntry[] = [];
    for (let i = result.rows.length - 1; i >= 0; i--) {
      const entry = parseLogEntryText(result.rows[i]!.entry);
      if (entry !== null) entries.push(entry);
    }
    return entries;
  }

  async deleteScope(scope: Scope): Promise<void> {
    assertScope(scope);
    await this.ready();
    // Two statements in one transaction: the second sees log entries of any write
    // that held the row while the first waited for it.
    await this.#guard(
      withTransaction(this.#pool, async (client) => {
        await this.#query(client, "deleteScope", [scope.key]);
        await this.#query(client, "deleteLog", [scope.key]);
        return { commit: true, value: undefined };
      }),
    );
  }

  /**
   * Retention (`prune`): see `pruneRows`. One transaction per scope, with
   * the row locked without waiting: a scope in use is never pruned.
   */
  async pruneScope(
    scope: Scope,
    decide: Parameters<typeof pruneRows>[3],
  ): Promise<RowPruneOutcome> {
    assertScope(scope);
    await this.ready();
    return this.#guard(
      withTransaction(this.#pool, (client) => pruneRows(client, this.schema, scope, decide)),
    );
  }

  /** Puts back a scope `pruneScope` archived; false when the scope exists again. */
  async restoreScope(rows: ScopeRows): Promise<boolean> {
    await this.ready();
    return this.#guard(
      withTransaction(this.#pool, (client) => restoreRows(client, this.schema, rows)),
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.end();
  }

  /** The slow path: hold the row lock across read, callback and write. */
  async #transactLocked<R>(
    scope: Scope,
    fn: (snapshot: ScopeSnapshot) => TransactionResult<R>,
  ): Promise<R> {
    const empty = emptySnapshot();
    for (let attempt = 0; attempt < LOCKED_ATTEMPTS; attempt++) {
      const outcome = await this.#guard(
        withTransaction<{ out: TransactionResult<R> } | null>(this.#pool, async (client) => {
          // Waiting for this scope's row is bounded, so a session that holds it
          // fails this transaction (naming the scope) instead of stalling it.
          await this.#query(client, "lockTimeout", [this.lockTimeoutMs]);
          // The row must exist to be locked; a placeholder holds empty documents at
          // revision 0, exactly what a read of a missing scope returns.
          await this.#query(client, "placeholder", [
            scope.key,
            scope.kind,
            JSON.stringify(empty.todos),
            JSON.stringify(empty.state),
          ]);
          const locked = await this.#query<ScopeRow>(client, "readForUpdate", [scope.key]);
          const { snapshot, version } = readRow(locked.rows[0]);
          // Deleted between the insert and the lock: start over.
          if (version === null) return { commit: false, value: null };
          const out = runCallback(fn, snapshot);
          const write = prepareWrite(out, this.logLimit);
          if (write === null) return { commit: false, value: { out } };
          const written = await this.#query(
            client,
            "update",
            this.#updateValues({ key: scope.key, version, write }),
          );
          if (written.rows.length !== 1) {
            throw new Error(`PostgresStore: locked write to scope ${scope.key} found no row`);
          }
          return { commit: true, value: { out } };
        }),
      );
      if (outcome !== null) return outcome.out.result;
    }
    throw new Error(
      `PostgresStore: scope ${scope.key} was deleted ${LOCKED_ATTEMPTS} times during one transaction; giving up`,
    );
  }

  #updateValues(item: UpdateItem): unknown[] {
    const { key, version, write } = item;
    return [key, version, write.todos, write.state, write.logCount, write.log, this.logLimit];
  }

  #updateManyValues(items: UpdateItem[]): unknown[] {
    // Key order: concurrent batches then take row locks in the same order.
    const sorted = [...items].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return [
      sorted.map((i) => i.key),
      sorted.map((i) => i.version),
      sorted.map((i) => i.write.todos),
      sorted.map((i) => i.write.state),
      sorted.map((i) => i.write.logCount),
      sorted.map((i) => i.write.log),
      this.logLimit,
    ];
  }

  async #readBatch(keys: string[]): Promise<Settled<ScopeRow | undefined>[]> {
    const unique = [...new Set(keys)];
    const result = await this.#query<ScopeRow>(this.#pool, "read", [unique]);
    const rows = new Map(result.rows.map((row) => [row.key, row]));
    return keys.map((key) => ({ ok: true, value: rows.get(key) }));
  }

  /**
   * One statement for the whole batch. Should it fail for any reason but the
   * connection, each write is retried alone, so one bad write cannot fail the
   * others.
   */
  async #writeBatch(items: UpdateItem[]): Promise<Settled<boolean>[]> {
    try {
      const [only] = items;
      const result =
        items.length === 1 && only !== undefined
          ? await this.#query<{ key: string }>(this.#pool, "update", this.#updateValues(only))
          : await this.#query<{ key: string }>(
              this.#pool,
              "updateMany",
              this.#updateManyValues(items),
            );
      const written = new Set(result.rows.map((row) => row.key));
      return items.map((item) => ({ ok: true, value: written.has(item.key) }));
    } catch (error) {
      if (items.length === 1 || error instanceof PostgresUnavailableError) throw error;
      this.#stats.splitBatches++;
      return Promise.all(
        items.map(async (item): Promise<Settled<boolean>> => {
          try {
            const [alone] = await this.#writeBatch([item]);
            return (
              alone ?? { ok: false, error: new Error("PostgresStore: a write returned nothing") }
            );
          } catch (aloneError) {
            return { ok: false, error: aloneError };
          }
        }),
      );
    }
  }

  async #query<T extends QueryResultRow = QueryResultRow>(
    db: Pool | PoolClient,
    name: StatementName,
    values: unknown[],
  ): Promise<QueryResult<T>> {
    if (this.#closed) throw this.#closedError();
    return this.#guard(db.query<T>(this.#statements.config(name, values)));
  }

  async #guard<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      throw this.#translate(error);
    }
  }

  #translate(error: unknown): unknown {
    return explainConnectionError(error, this.target) ?? error;
  }

  #closedError(): Error {
    return new Error("PostgresStore: the store is closed");
  }
}

/**
 * Creates a store on PostgreSQL. Nothing connects until first use (or
 * `ready()`); the schema is created or migrated then. Options are checked
 * now, so a bad option throws here, naming the field.
 */
export function createPostgresStore(options: PostgresStoreOptions = {}): PostgresStore {
  return new PostgresStore(resolveOptions(options));
}
