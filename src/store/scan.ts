import type { ScanOptions, Scope, ScopeScan, Store } from "../core/types.js";

/** Scopes per batch unless told otherwise. */
export const DEFAULT_SCAN_BATCH = 256;

/** Scopes read at once by the per-scope fallback: enough to keep a database pool busy. */
const FALLBACK_CONCURRENCY = 16;

/**
 * Every scope of `store` (or `options.scopes`), read in batches: per scope the
 * snapshot `read` gives, the newest `logTail` entries `readLog` gives and the
 * report `problems` gives. A store with a `scan` method answers in one pass;
 * any other is read scope by scope, a few at a time. A scope that cannot be
 * read comes back with `ok: false` and its error; the others are unaffected.
 * Listing the scopes failing, or the signal aborting, throws from the iterator.
 */
export function scanScopes(store: Store, options: ScanOptions = {}): AsyncIterable<ScopeScan[]> {
  checkScanOptions(options);
  return store.scan ? store.scan(options) : scanEach(store, options);
}

/** Refuses options no scan can honour, with what was wrong. */
export function checkScanOptions(options: ScanOptions): void {
  const { logTail, batchSize } = options;
  if (typeof logTail === "number" && (!Number.isSafeInteger(logTail) || logTail < 0)) {
    throw new RangeError(`scanScopes: logTail must be a non-negative integer, got ${logTail}`);
  }
  if (batchSize !== undefined && (!Number.isSafeInteger(batchSize) || batchSize < 1)) {
    throw new RangeError(`scanScopes: batchSize must be a positive integer, got ${batchSize}`);
  }
}

/** The log entries wanted for `scope` (a function's answer is checked like a number). */
export function tailOf(options: ScanOptions, scope: Scope): number {
  const { logTail } = options;
  const tail = typeof logTail === "function" ? logTail(scope) : (logTail ?? 1);
  if (!Number.isSafeInteger(tail) || tail < 0) {
    throw new RangeError(`scanScopes: logTail gave ${tail} for ${scope.key}`);
  }
  return tail;
}

/** The scopes to read: the given ones once each, in order; else every listed scope. */
export async function scopesToScan(store: Store, options: ScanOptions): Promise<Scope[]> {
  return options.scopes === undefined ? store.listScopes() : uniqueScopes(options.scopes);
}

/** `scopes` with each key once, first occurrence kept. */
export function uniqueScopes(scopes: readonly Scope[]): Scope[] {
  const seen = new Set<string>();
  return scopes.filter((scope) => {
    const key = typeof scope?.key === "string" ? scope.key : String(scope?.key);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

async function readOne(store: Store, scope: Scope, options: ScanOptions): Promise<ScopeScan> {
  try {
    const tail = tailOf(options, scope);
    const [snapshot, log, problems] = await Promise.all([
      store.read(scope),
      // One entry at least, to tell whether a log exists.
      store.readLog(scope, Math.max(tail, 1)),
      store.problems?.(scope) ?? [],
    ]);
    const exists =
      snapshot.todosRevision > 0 ||
      snapshot.stateRevision > 0 ||
      snapshot.state.stopped ||
      log.length > 0 ||
      problems.length > 0;
    return { scope, ok: true, snapshot, log: tail === 0 ? [] : log, problems, exists };
  } catch (error) {
    return { scope, ok: false, error: asError(error) };
  }
}

/** The fallback: scope by scope, `FALLBACK_CONCURRENCY` at a time. */
async function* scanEach(store: Store, options: ScanOptions): AsyncGenerator<ScopeScan[]> {
  const scopes = await scopesToScan(store, options);
  const size = options.batchSize ?? DEFAULT_SCAN_BATCH;
  for (let start = 0; start < scopes.length; start += size) {
    options.signal?.throwIfAborted();
    const slice = scopes.slice(start, start + size);
    const out: ScopeScan[] = new Array(slice.length);
    let next = 0;
    const worker = async () => {
      while (next < slice.length) {
        const index = next++;
        out[index] = await readOne(store, slice[index]!, options);
      }
    };
    await Promise.all(Array.from({ length: Math.min(FALLBACK_CONCURRENCY, slice.length) }, worker));
    yield out;
  }
}
