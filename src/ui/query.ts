import { type OverviewRow, type ScopeStateName, STATE_NAMES } from "./view-model.js";

/** The overview's filter and sort, read from the URL so a view can be bookmarked. */

export type SortKey = "label" | "host" | "state" | "open" | "blocked" | "done" | "last";

export const SORT_KEYS: readonly SortKey[] = [
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
  sort: SortKey;
  descending: boolean;
}

export const DEFAULT_QUERY: OverviewQuery = {
  text: "",
  host: "",
  state: "",
  sort: "last",
  descending: true,
};

/** The overview's query from URL parameters; unknown values fall back to the default. */
export function parseQuery(params: URLSearchParams): OverviewQuery {
  const state = params.get("state") ?? "";
  const sort = params.get("sort") ?? "";
  const order = params.get("order");
  const sortKey = (SORT_KEYS as string[]).includes(sort) ? (sort as SortKey) : DEFAULT_QUERY.sort;
  return {
    text: (params.get("q") ?? "").trim().slice(0, 200),
    host: (params.get("host") ?? "").trim(),
    state: (STATE_NAMES as string[]).includes(state) ? (state as ScopeStateName) : "",
    sort: sortKey,
    descending: order === null ? sortKey === DEFAULT_QUERY.sort : order === "desc",
  };
}

function compareBy(sort: SortKey): (a: OverviewRow, b: OverviewRow) => number {
  const text = (f: (r: OverviewRow) => string) => (a: OverviewRow, b: OverviewRow) =>
    f(a) < f(b) ? -1 : f(a) > f(b) ? 1 : 0;
  const num = (f: (r: OverviewRow) => number) => (a: OverviewRow, b: OverviewRow) => f(a) - f(b);
  switch (sort) {
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
  return JSON.stringify([query.text, query.host, query.state, query.sort, query.descending]);
}
