import { isOldFinished, type OverviewQuery, queryKey, rowMatcher, rowOrder } from "./query.js";
import type { OverviewRow } from "./view-model.js";

/** Selections (filtered and sorted rows) kept for the most recent queries. */
const KEPT_SELECTIONS = 8;

/**
 * Changes a kept selection takes one by one before it is dropped instead (and
 * sorted again at its next request): a reload of thousands of scopes is
 * cheaper to sort again than to splice row by row.
 */
const INCREMENTAL_CHANGES = 256;

/** What the overview and `/metrics` show of all rows, kept up to date row by row. */
export interface RowSummary {
  total: number;
  /** Rows per state name (states without rows are absent). */
  byState: ReadonlyMap<string, number>;
  /** Rows per group (groups without rows are absent). */
  byGroup: ReadonlyMap<string, number>;
  /** Every host with a row, sorted. */
  hosts: readonly string[];
  /** Rows with an open continuation episode, per host. */
  episodesByHost: ReadonlyMap<string, number>;
}

interface Selection {
  matches: (row: OverviewRow) => boolean;
  order: (a: OverviewRow, b: OverviewRow) => number;
  rows: OverviewRow[];
  /** Changes applied since it was sorted. */
  changes: number;
}

/**
 * The dashboard's rows, with what every page request needs kept ready: the
 * counts per state and host (updated per changed row, never recounted), and
 * the selections of the last few queries, each kept sorted by putting a
 * changed row in its place (a binary search) instead of sorting all rows
 * again. A request then costs its page of rows, not the whole store.
 */
export class RowIndex {
  readonly #rows = new Map<string, OverviewRow>();
  readonly #byState = new Map<string, number>();
  readonly #byGroup = new Map<string, number>();
  readonly #byHost = new Map<string, number>();
  readonly #episodesByHost = new Map<string, number>();
  readonly #selections = new Map<string, Selection>();
  #hosts: string[] | null = null;
  #byKey: OverviewRow[] | null = null;

  get size(): number {
    return this.#rows.size;
  }

  get(key: string): OverviewRow | undefined {
    return this.#rows.get(key);
  }

  has(key: string): boolean {
    return this.#rows.has(key);
  }

  keys(): IterableIterator<string> {
    return this.#rows.keys();
  }

  /** Puts `row` in place of the row of its key (if any). */
  set(row: OverviewRow): void {
    const old = this.#rows.get(row.key);
    this.#rows.set(row.key, row);
    this.#changed(old, row);
  }

  delete(key: string): void {
    const old = this.#rows.get(key);
    if (old === undefined) return;
    this.#rows.delete(key);
    this.#changed(old, undefined);
  }

  /** Every row in key order. */
  inKeyOrder(): OverviewRow[] {
    this.#byKey ??= [...this.#rows.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
    return this.#byKey;
  }

  /** The rows `query` picks, in its order (shared: callers must not change the array). */
  select(query: OverviewQuery): readonly OverviewRow[] {
    const key = queryKey(query);
    let selection = this.#selections.get(key);
    if (selection === undefined) {
      const matches = rowMatcher(query);
      const order = rowOrder(query);
      const rows: OverviewRow[] = [];
      for (const row of this.#rows.values()) if (matches(row)) rows.push(row);
      selection = { matches, order, rows: rows.sort(order), changes: 0 };
      if (this.#selections.size >= KEPT_SELECTIONS) {
        this.#selections.delete(this.#selections.keys().next().value!);
      }
    } else {
      this.#selections.delete(key);
    }
    // Most recently used last, so the oldest is the first one dropped.
    this.#selections.set(key, selection);
    return selection.rows;
  }

  /**
   * Finished rows whose last event is older than `hideBefore` (the ones the overview hides).
   * Counted per request: age moves with the clock, not with changes, and a pass over the rows
   * is a fraction of a millisecond per thousand.
   */
  countOldFinished(hideBefore: number): number {
    let n = 0;
    for (const row of this.#rows.values()) if (isOldFinished(row, hideBefore)) n++;
    return n;
  }

  summary(): RowSummary {
    this.#hosts ??= [...this.#byHost.keys()].sort();
    return {
      total: this.#rows.size,
      byState: this.#byState,
      byGroup: this.#byGroup,
      hosts: this.#hosts,
      episodesByHost: this.#episodesByHost,
    };
  }

  #changed(old: OverviewRow | undefined, row: OverviewRow | undefined): void {
    this.#byKey = null;
    if (old !== undefined) this.#count(old, -1);
    if (row !== undefined) this.#count(row, 1);
    for (const [key, selection] of this.#selections) {
      if (++selection.changes > INCREMENTAL_CHANGES) {
        this.#selections.delete(key);
        continue;
      }
      if (old !== undefined && selection.matches(old)) {
        const at = find(selection.rows, old, selection.order);
        if (at >= 0) selection.rows.splice(at, 1);
      }
      if (row !== undefined && selection.matches(row)) {
        selection.rows.splice(insertionPoint(selection.rows, row, selection.order), 0, row);
      }
    }
  }

  #count(row: OverviewRow, by: 1 | -1): void {
    bump(this.#byState, row.state, by);
    bump(this.#byGroup, row.group, by);
    if (bump(this.#byHost, row.host, by)) this.#hosts = null;
    if (row.episodeId !== null) bump(this.#episodesByHost, row.host, by);
  }
}

/** Adds `by` to the count of `key`, dropping it at zero; true when the key came or went. */
function bump(counts: Map<string, number>, key: string, by: number): boolean {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) {
    counts.delete(key);
    return true;
  }
  counts.set(key, next);
  return next === by;
}

/** The first index whose row sorts after `row` (rows are sorted by `order`). */
function insertionPoint(
  rows: readonly OverviewRow[],
  row: OverviewRow,
  order: (a: OverviewRow, b: OverviewRow) => number,
): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (order(rows[mid]!, row) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The index of the row of `row`'s key, found by its place in the order; -1 when absent. */
function find(
  rows: readonly OverviewRow[],
  row: OverviewRow,
  order: (a: OverviewRow, b: OverviewRow) => number,
): number {
  const at = insertionPoint(rows, row, order) - 1;
  if (at >= 0 && rows[at]!.key === row.key) return at;
  // Not where its order puts it (cannot happen while rows are replaced, never changed): search.
  return rows.findIndex((r) => r.key === row.key);
}
