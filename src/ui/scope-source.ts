import { describeScope, parseScopeKey } from "../core/scope/scope.js";
import type { DecisionLogEntry, Scope, ScopeScan, Store } from "../core/types.js";
import { scanScopes } from "../store/scan.js";
import type { ScopeJudge } from "./judge.js";
import { DecisionCounters } from "./metrics.js";
import type { OverviewQuery } from "./query.js";
import { RowIndex, type RowSummary } from "./row-index.js";
import { TotalsBook, type TotalsRow } from "./totals.js";
import {
  type OverviewRow,
  overviewRow,
  problemFromReport,
  problemOf,
  scopeHost,
  unreadableRow,
} from "./view-model.js";
import { Yielder } from "./yielding.js";

/**
 * Log entries read per scope: the totals per day are recomputed from them at every read, so a
 * restarted dashboard shows the same totals (the file store keeps 200 by default). New
 * decisions for `/metrics` are counted among them.
 */
const LOG_READ = 200;

/** Scopes read per batch: what is held at once, and how much one slice of work may grow. */
const BATCH = 128;

type Listener = (keys: string[]) => void;

/**
 * The dashboard's picture of the store: one overview row per scope, kept up to
 * date by `refresh` (called on each change the store reports), so pages render
 * from memory instead of reading thousands of files per request. It also
 * counts the decisions it sees appear, for `/metrics`.
 *
 * Reads go through the store's batch scan and yield to the event loop every
 * few milliseconds, so requests and Ctrl-C are answered during a reload.
 * Changes that arrive while a read runs are gathered and read together next,
 * each scope once; only "all" (a change feed that lost track) re-lists the store.
 */
export class ScopeSource {
  readonly counters = new DecisionCounters();
  /** Judges each scope by its project's limits, as its hook did. */
  readonly #judge: ScopeJudge;
  readonly #rows = new RowIndex();
  readonly #totals = new TotalsBook();
  /** The project folder every scope of this store works in, when the store is a project's. */
  readonly #project: string | null;
  readonly #scopes = new Map<string, Scope>();
  /** The newest log entry seen per scope, to tell new entries from old ones. */
  readonly #newest = new Map<string, DecisionLogEntry | null>();
  readonly #listeners = new Set<Listener>();
  readonly #closing = new AbortController();
  #listError: string | null = null;
  /** Whether a whole reload has completed (the first one reads the store in one scan). */
  #loaded = false;
  /** Keys waiting for the next read, or "all". */
  #pending: Set<string> | "all" | null = null;
  /** The read under way (it takes the pending keys when it is done with its own). */
  #running: Promise<void> | null = null;
  /** Settles once every change asked for so far has been read. */
  #waiters: { resolve(): void; reject(error: unknown): void }[] = [];

  constructor(judge: ScopeJudge, project: string | null = null) {
    this.#judge = judge;
    this.#project = project;
  }

  /** Nudges, continuation tokens and cost per day and host, from the logs as last read. */
  totals(days?: number): TotalsRow[] {
    return this.#totals.rows(days);
  }

  /** Finished scopes whose last event is older than `hideBefore`. */
  countOldFinished(hideBefore: number): number {
    return this.#rows.countOldFinished(hideBefore);
  }

  get store(): Store {
    return this.#judge.base.store;
  }

  /** Every row, in key order. */
  rows(): OverviewRow[] {
    return this.#rows.inKeyOrder();
  }

  /** The rows `query` picks, in its order, kept sorted between changes (do not change the array). */
  select(query: OverviewQuery): readonly OverviewRow[] {
    return this.#rows.select(query);
  }

  /** Counts over all rows (per state, per host), kept up to date as rows change. */
  summary(): RowSummary {
    return this.#rows.summary();
  }

  row(key: string): OverviewRow | undefined {
    return this.#rows.get(key);
  }

  scope(key: string): Scope | undefined {
    return this.#scopes.get(key);
  }

  /** Why the store could not list its scopes at the last reload, or null. */
  get listError(): string | null {
    return this.#listError;
  }

  /** Called with the changed keys after each refresh that changed something. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Re-reads the named scopes, or every scope (re-listing them) for "all".
   * Resolves once they are read; rejects only when `close` interrupted it, or
   * `signal` aborts a first load.
   */
  refresh(keys: string[] | "all", signal?: AbortSignal): Promise<void> {
    if (keys === "all") this.#pending = "all";
    else if (this.#pending !== "all") {
      this.#pending ??= new Set();
      for (const key of keys) this.#pending.add(key);
    }
    const done = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    this.#running ??= this.#drain(signal);
    return done;
  }

  /** Stops any read under way: `refresh` calls still waiting reject. */
  close(): void {
    this.#closing.abort(new Error("the dashboard is closing"));
  }

  async #drain(signal?: AbortSignal): Promise<void> {
    const stop = signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal;
    try {
      while (this.#pending !== null) {
        const batch = this.#pending;
        const waiters = this.#waiters;
        this.#pending = null;
        this.#waiters = [];
        try {
          if (batch === "all") await this.#reloadAll(stop);
          else await this.#reload([...batch], stop);
          for (const waiter of waiters) waiter.resolve();
        } catch (error) {
          for (const waiter of waiters) waiter.reject(error);
          if (stop.aborted) {
            for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
            this.#pending = null;
          }
        }
      }
    } finally {
      this.#running = null;
    }
  }

  async #reloadAll(signal: AbortSignal): Promise<void> {
    // The first load, before anything is served, is the store's whole scan (the file store
    // lists each folder once and reads only the files it saw). Later, while pages are served,
    // the store is listed first, then its scopes read by name: a store that reads named scopes
    // without indexing whole folders (the file store) then never blocks on a listing.
    const found = new Set<string>();
    try {
      if (this.#loaded) {
        const scopes = await this.store.listScopes();
        signal.throwIfAborted();
        await this.#scan(scopes, signal, found);
      } else {
        await this.#scan(undefined, signal, found);
        this.#loaded = true;
      }
      this.#listError = null;
    } catch (error) {
      if (signal.aborted) throw error;
      this.counters.storeErrors++;
      this.#listError = problemOf(error).message;
      this.#emit([]);
      return;
    }
    const gone = [...this.#rows.keys()].filter((key) => !found.has(key));
    for (const key of gone) this.#forget(key);
    this.#emit([...gone, ...found]);
  }

  async #reload(keys: string[], signal: AbortSignal): Promise<void> {
    const scopes: Scope[] = [];
    for (const key of keys) {
      // A key the store reported but this source has not seen yet: a new scope, if it parses.
      const scope = this.#scopes.get(key) ?? parseScopeKey(key);
      if (scope !== null) scopes.push(scope);
    }
    await this.#scan(scopes, signal);
    this.#emit(keys);
  }

  /** Reads `scopes` through the store's batch scan, updating their rows as batches arrive. */
  async #scan(
    scopes: Scope[] | undefined,
    signal: AbortSignal,
    found?: Set<string>,
  ): Promise<void> {
    const yielder = new Yielder();
    const batches = scanScopes(this.store, {
      ...(scopes === undefined ? {} : { scopes }),
      batchSize: BATCH,
      signal,
      logTail: LOG_READ,
    });
    for await (const batch of batches) {
      for (const item of batch) {
        found?.add(item.scope.key);
        this.#apply(item);
        await yielder.maybe();
        signal.throwIfAborted();
      }
    }
  }

  #forget(key: string): void {
    this.#rows.delete(key);
    this.#scopes.delete(key);
    this.#newest.delete(key);
    this.#totals.delete(key);
  }

  #apply(item: ScopeScan): void {
    const { scope } = item;
    const label = describeScope(scope);
    if (!item.ok) {
      this.counters.storeErrors++;
      this.counters.setEpisode(scope, null);
      this.#scopes.set(scope.key, scope);
      this.#totals.delete(scope.key);
      // Read in full when it is readable again (its totals were dropped).
      this.#newest.delete(scope.key);
      this.#rows.set(unreadableRow(scope, label, problemOf(item.error), this.#project));
      return;
    }
    try {
      const { snapshot, log } = item;
      const problem = problemFromReport(item.problems);
      // Nothing stored any more (deleted by another process): no longer a scope.
      if (!item.exists && problem === null) {
        this.#forget(scope.key);
        return;
      }
      if (problem?.unreadable) this.counters.storeErrors++;
      const last = log.at(-1) ?? null;
      const known = this.#newest.has(scope.key);
      const fresh = known ? newEntries(log, this.#newest.get(scope.key) ?? null) : log;
      if (known) this.counters.count(scope, fresh);
      // A log is only ever appended to (and trimmed as it is): the same newest entry is the same
      // log, so its totals stand; a reload of unchanged scopes recomputes none.
      if (!known || fresh.length > 0 || last === null)
        this.#totals.set(scope.key, scopeHost(scope), log);
      this.#newest.set(scope.key, last);
      this.#scopes.set(scope.key, scope);
      const now = this.#judge.base.now();
      const { decision, summary, limits } = this.#judge.preview(snapshot, now);
      this.#rows.set(
        overviewRow({
          scope,
          label,
          snapshot,
          summary,
          decision,
          last,
          limits: limits.limits,
          limitsFrom: limits,
          now,
          problem,
          log,
          project: this.#project,
        }),
      );
      this.counters.setEpisode(scope, snapshot.state.episode);
    } catch (error) {
      this.counters.storeErrors++;
      this.counters.setEpisode(scope, null);
      this.#scopes.set(scope.key, scope);
      this.#totals.delete(scope.key);
      // Read in full when it is readable again (its totals were dropped).
      this.#newest.delete(scope.key);
      this.#rows.set(unreadableRow(scope, label, problemOf(error), this.#project));
    }
  }

  #emit(keys: string[]): void {
    for (const listener of this.#listeners) listener(keys);
  }
}

/** The entries of `log` (oldest first) after `newest`; all of them when it is no longer there. */
export function newEntries(
  log: readonly DecisionLogEntry[],
  newest: DecisionLogEntry | null,
): DecisionLogEntry[] {
  if (newest === null) return [...log];
  for (let i = log.length - 1; i >= 0; i--) {
    const entry = log[i]!;
    if (entry.at === newest.at && JSON.stringify(entry) === JSON.stringify(newest)) {
      return log.slice(i + 1);
    }
  }
  return [...log];
}
