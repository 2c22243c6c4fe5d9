import { describeScope } from "../core/scope/scope.js";
import type { DecisionLogEntry, Scope, Store } from "../core/types.js";
import type { ContinuationRuntime } from "../runtime/runtime.js";
import { DecisionCounters } from "./metrics.js";
import {
  type OverviewRow,
  overviewRow,
  problemFromReport,
  problemOf,
  unreadableRow,
} from "./view-model.js";

/** Log entries read per changed scope to count new decisions; more between two changes are cut. */
const NEW_ENTRIES_READ = 50;

/** Scopes read at once on a full reload: enough to keep a database pool busy, no more. */
const READ_CONCURRENCY = 16;

type Listener = (keys: string[]) => void;

/**
 * The dashboard's picture of the store: one overview row per scope, kept up to
 * date by `refresh` (called on each change the store reports), so pages render
 * from memory instead of reading thousands of files per request. It also
 * counts the decisions it sees appear, for `/metrics`.
 */
export class ScopeSource {
  readonly counters = new DecisionCounters();
  readonly #runtime: ContinuationRuntime;
  readonly #rows = new Map<string, OverviewRow>();
  readonly #scopes = new Map<string, Scope>();
  /** The newest log entry seen per scope, to tell new entries from old ones. */
  readonly #newest = new Map<string, DecisionLogEntry | null>();
  readonly #listeners = new Set<Listener>();
  #sorted: OverviewRow[] | null = null;
  /** Refreshes run one after another, so two changes never interleave their reads. */
  #queue: Promise<void> = Promise.resolve();
  #listError: string | null = null;

  constructor(runtime: ContinuationRuntime) {
    this.#runtime = runtime;
  }

  get store(): Store {
    return this.#runtime.store;
  }

  /** Every row, in key order. */
  rows(): OverviewRow[] {
    this.#sorted ??= [...this.#rows.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
    return this.#sorted;
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

  /** Re-reads the named scopes, or every scope (re-listing them) for "all". */
  refresh(keys: string[] | "all"): Promise<void> {
    const next = this.#queue.then(() => (keys === "all" ? this.#reloadAll() : this.#reload(keys)));
    this.#queue = next.catch(() => {});
    return next;
  }

  async #reloadAll(): Promise<void> {
    let scopes: Scope[];
    try {
      scopes = await this.store.listScopes();
      this.#listError = null;
    } catch (error) {
      this.counters.storeErrors++;
      this.#listError = problemOf(error).message;
      this.#emit([]);
      return;
    }
    const keep = new Set(scopes.map((s) => s.key));
    const gone = [...this.#rows.keys()].filter((key) => !keep.has(key));
    for (const key of gone) this.#forget(key);
    for (const scope of scopes) this.#scopes.set(scope.key, scope);
    let next = 0;
    const worker = async () => {
      while (next < scopes.length) {
        const scope = scopes[next++]!;
        await this.#read(scope);
      }
    };
    await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
    this.#sorted = null;
    this.#emit([...gone, ...scopes.map((s) => s.key)]);
  }

  async #reload(keys: string[]): Promise<void> {
    const changed: string[] = [];
    for (const key of new Set(keys)) {
      const known = this.#scopes.get(key);
      const scope = known ?? (await this.#find(key));
      if (scope === undefined) {
        if (this.#rows.has(key)) this.#forget(key);
        changed.push(key);
        continue;
      }
      this.#scopes.set(key, scope);
      await this.#read(scope);
      changed.push(key);
    }
    this.#sorted = null;
    this.#emit(changed);
  }

  /** A key the store reported but this source has not seen: only scopes the store lists count. */
  async #find(key: string): Promise<Scope | undefined> {
    try {
      return (await this.store.listScopes()).find((s) => s.key === key);
    } catch {
      this.counters.storeErrors++;
      return undefined;
    }
  }

  #forget(key: string): void {
    this.#rows.delete(key);
    this.#scopes.delete(key);
    this.#newest.delete(key);
    this.#sorted = null;
  }

  async #read(scope: Scope): Promise<void> {
    const label = describeScope(scope);
    try {
      const known = this.#newest.has(scope.key);
      const [snapshot, log, report] = await Promise.all([
        this.store.read(scope),
        this.store.readLog(scope, known ? NEW_ENTRIES_READ : 1),
        // Stores whose documents cannot break have no report to give.
        this.store.problems?.(scope) ?? [],
      ]);
      const problem = problemFromReport(report);
      if (problem?.unreadable) this.counters.storeErrors++;
      const last = log.at(-1) ?? null;
      // Nothing stored any more (deleted by another process): no longer a scope.
      if (
        snapshot.todosRevision === 0 &&
        snapshot.stateRevision === 0 &&
        last === null &&
        problem === null
      ) {
        this.#forget(scope.key);
        return;
      }
      if (known) this.counters.count(scope, newEntries(log, this.#newest.get(scope.key) ?? null));
      this.#newest.set(scope.key, last);
      const now = this.#runtime.now();
      const { decision, summary } = this.#runtime.preview(snapshot, {}, now);
      this.#rows.set(
        scope.key,
        overviewRow({
          scope,
          label,
          snapshot,
          summary,
          decision,
          last,
          limits: this.#runtime.limits,
          now,
          problem,
        }),
      );
      this.counters.setEpisode(scope, snapshot.state.episode);
    } catch (error) {
      this.counters.storeErrors++;
      this.counters.setEpisode(scope, null);
      this.#rows.set(scope.key, unreadableRow(scope, label, problemOf(error)));
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
