import { GROUP_NAMES, type GroupName, isFinished } from "./groups.js";
import { type OverviewRow, type ScopeStateName, STATE_NAMES } from "./view-model.js";

/** The overview's filter and sort, read from the URL so a view can be bookmarked. */

export type SortKey = "group" | "label" | "host" | "state" | "open" | "blocked" | "done" | "last";

export const SORT_KEYS: readonly SortKey[] = [
  "group",
  "label",
  "host",
  "state",
  "open",
  "blocked",
  "done",
  "last",
];

export interface OverviewQuery {
  text: string;
  host: string;
  state: ScopeStateName | "";
  group: GroupName | "";
  sort: SortKey;
  descending: boolean;
  /**
   * Finished scopes (not needing anyone, not working) whose last event is older than this are
   * left out; null shows them all.
   */
  hideBefore: number | null;
}

export const DEFAULT_QUERY: OverviewQuery = {
  text: "",
  host: "",
  state: "",
  group: "",
  sort: "group",
  descending: false,
  hideBefore: null,
};

/** How old a finished scope's last event may be before the overview hides it (unless asked). */
export const FINISHED_SHOWN_MS = 86_400_000;

/**
 * Where the cut for old finished scopes falls at `now`: rounded down to the minute, so the
 * selections kept between requests stay valid for a minute at a time.
 */
export function hideBeforeAt(now: number): number {
  return Math.floor((now - FINISHED_SHOWN_MS) / 60_000) * 60_000;
}

/**
 * The overview's query from URL parameters; unknown values fall back to the default. With
 * `now`, old finished scopes are hidden unless `old=1` asks for them.
 */
export function parseQuery(params: URLSearchParams, now?: number): OverviewQuery {
  const state = params.get("state") ?? "";
  const group = params.get("group") ?? "";
  const sort = params.get("sort") ?? "";
  const order = params.get("order");
  const sortKey = (SORT_KEYS as string[]).includes(sort) ? (sort as SortKey) : DEFAULT_QUERY.sort;
  return {
    text: (params.get("q") ?? "").trim().slice(0, 200),
    host: (params.get("host") ?? "").trim(),
    state: (STATE_NAMES as string[]).includes(state) ? (state as ScopeStateName) : "",
    group: (GROUP_NAMES as string[]).includes(group) ? (group as GroupName) : "",
    sort: sortKey,
    // The newest decision first by default; groups in their own order (needs you first).
    descending: order === null ? sortKey === "last" : order === "desc",
    hideBefore: now === undefined || params.get("old") === "1" ? null : hideBeforeAt(now),
  };
}

/**
 * Whether a row is a finished scope whose last event is older than `hideBefore`. A scope with no
 * event time at all (a list and nothing else) is shown: its age is unknown.
 */
export function isOldFinished(row: OverviewRow, hideBefore: number): boolean {
  return isFinished(row.group) && row.lastEventAt !== null && row.lastEventAt < hideBefore;
}

/** A group's place in the order (a plain object: the sort of 10,000 rows looks it up often). */
const GROUP_RANK = Object.fromEntries(GROUP_NAMES.map((g, i) => [g, i])) as Record<string, number>;

function compareBy(sort: SortKey): (a: OverviewRow, b: OverviewRow) => number {
  const text = (f: (r: OverviewRow) => string) => (a: OverviewRow, b: OverviewRow) =>
    f(a) < f(b) ? -1 : f(a) > f(b) ? 1 : 0;
  const num = (f: (r: OverviewRow) => number) => (a: OverviewRow, b: OverviewRow) => f(a) - f(b);
  switch (sort) {
    case "group":
      // In a group, the newest event first.
      return (a, b) =>
        GROUP_RANK[a.group]! - GROUP_RANK[b.group]! || (b.lastEventAt ?? 0) - (a.lastEventAt ?? 0);
    case "label":
      return text((r) => r.label.toLowerCase());
    case "host":
      return text((r) => r.host);
    case "state":
      return text((r) => r.state);
    case "open":
      return num((r) => r.counts.open);
    case "blocked":
      return num((r) => r.counts.blocked);
    case "done":
      return num((r) => r.counts.done);
    case "last":
      return num((r) => r.last?.at ?? 0);
  }
}

/** Whether a row passes the query's filters. */
export function rowMatcher(query: OverviewQuery): (row: OverviewRow) => boolean {
  const text = query.text.toLowerCase();
  return (r) =>
    (query.host === "" || r.host === query.host) &&
    (query.state === "" || r.state === query.state) &&
    (query.group === "" || r.group === query.group) &&
    (query.hideBefore === null || !isOldFinished(r, query.hideBefore)) &&
    (text === "" || r.search.includes(text));
}

/** The query's order over rows: its sort, then key order (keys are unique, so the order is total). */
export function rowOrder(query: OverviewQuery): (a: OverviewRow, b: OverviewRow) => number {
  const compare = compareBy(query.sort);
  const sign = query.descending ? -1 : 1;
  return (a, b) => sign * compare(a, b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** Filters and sorts rows; ties keep key order, so the page is stable between refreshes. */
export function selectRows(rows: readonly OverviewRow[], query: OverviewQuery): OverviewRow[] {
  return rows.filter(rowMatcher(query)).sort(rowOrder(query));
}

/** A query as a string, for caching its selection. */
export function queryKey(query: OverviewQuery): string {
  return JSON.stringify([
    query.text,
    query.host,
    query.state,
    query.group,
    query.sort,
    query.descending,
    query.hideBefore,
  ]);
}
