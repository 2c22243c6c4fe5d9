import { describe, expect, it } from "vitest";
import { DEFAULT_QUERY, parseQuery, selectRows } from "./query.js";
import type { OverviewRow } from "./view-model.js";

describe("filter and sort", () => {
  const base = (key: string, host: string, state: OverviewRow["state"], open: number, at: number) =>
    ({
      key,
      kind: "session",
      host,
      label: key,
      counts: { open, blocked: 0, done: 0, cancelled: 0, total: open },
      state,
      stateWords: state,
      budgets: [],
      episodeId: null,
      last: { at, action: "inject", reason: null, words: "nudged" },
      problem: null,
      group: "idle",
      groupWhy: "nothing to do",
      project: null,
      model: null,
      lastEventAt: at,
      spend: null,
      limits: null,
      limitsFrom: null,
      search: `${key} ${host} ${state}`,
    }) satisfies OverviewRow;
  const rows = [
    base("a", "pi", "idle", 3, 30),
    base("b", "codex", "nudging", 1, 10),
    base("c", "pi", "nudging", 2, 20),
  ];

  it("filters by host, state and text, newest decision first by default", () => {
    expect(selectRows(rows, DEFAULT_QUERY).map((r) => r.key)).toEqual(["a", "c", "b"]);
    expect(selectRows(rows, { ...DEFAULT_QUERY, host: "pi" }).map((r) => r.key)).toEqual([
      "a",
      "c",
    ]);
    expect(selectRows(rows, { ...DEFAULT_QUERY, state: "nudging" }).map((r) => r.key)).toEqual([
      "c",
      "b",
    ]);
    expect(selectRows(rows, { ...DEFAULT_QUERY, text: "CODEX" }).map((r) => r.key)).toEqual(["b"]);
    expect(
      selectRows(rows, { ...DEFAULT_QUERY, sort: "open", descending: false }).map((r) => r.key),
    ).toEqual(["b", "c", "a"]);
  });

  it("reads the query from the URL, ignoring values it does not know", () => {
    expect(parseQuery(new URLSearchParams("q=x&host=pi&state=bogus&sort=nope"))).toEqual({
      ...DEFAULT_QUERY,
      text: "x",
      host: "pi",
    });
    expect(parseQuery(new URLSearchParams("sort=label&order=desc"))).toMatchObject({
      sort: "label",
      descending: true,
    });
  });
});
