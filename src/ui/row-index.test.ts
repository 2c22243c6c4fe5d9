import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GROUP_NAMES } from "./groups.js";
import { DEFAULT_QUERY, type OverviewQuery, SORT_KEYS, selectRows } from "./query.js";
import { RowIndex } from "./row-index.js";
import { type OverviewRow, STATE_NAMES } from "./view-model.js";

function row(key: string, host: string, state: OverviewRow["state"], n: number): OverviewRow {
  return {
    key,
    kind: "session",
    host,
    label: n % 3 === 0 ? key.toUpperCase() : key,
    counts: { open: n % 4, blocked: n % 2, done: n % 5, cancelled: 0, total: 9 },
    state,
    stateWords: state,
    budgets: [],
    episodeId: n % 2 === 0 ? `ep-${n}` : null,
    last: n % 7 === 0 ? null : { at: n % 11, action: "inject", reason: null, words: "nudged" },
    problem: null,
    group: n % 3 === 0 ? "done" : n % 3 === 1 ? "needs-you" : "working",
    groupWhy: "",
    project: null,
    model: null,
    lastEventAt: n % 17 === 0 ? null : n % 13,
    spend: null,
    limits: null,
    limitsFrom: null,
    search: `${key} ${host} ${state}`,
  };
}

const key = fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h");
const host = fc.constantFrom("pi", "codex", "gemini");
const state = fc.constantFrom(...STATE_NAMES);
const query: fc.Arbitrary<OverviewQuery> = fc.record({
  text: fc.constantFrom("", "a", "pi", "zz"),
  host: fc.constantFrom("", "pi", "codex"),
  state: fc.constantFrom("", ...STATE_NAMES),
  group: fc.constantFrom("", ...GROUP_NAMES),
  sort: fc.constantFrom(...SORT_KEYS),
  descending: fc.boolean(),
  hideBefore: fc.constantFrom(null, 5),
});
const step = fc.oneof(
  fc.record({ set: fc.tuple(key, host, state, fc.nat(50)) }),
  fc.record({ delete: key }),
  fc.record({ select: query }),
);

describe("RowIndex", () => {
  it("answers every query as sorting all rows would, and counts as counting them would", () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 60 }),
        fc.array(query, { maxLength: 4 }),
        (steps, last) => {
          const index = new RowIndex();
          const rows = new Map<string, OverviewRow>();
          for (const s of steps) {
            if ("set" in s) {
              const r = row(...s.set);
              index.set(r);
              rows.set(r.key, r);
            } else if ("delete" in s) {
              index.delete(s.delete);
              rows.delete(s.delete);
            } else {
              expect(index.select(s.select)).toEqual(selectRows([...rows.values()], s.select));
            }
          }
          for (const q of last) {
            expect(index.select(q)).toEqual(selectRows([...rows.values()], q));
          }
          const all = [...rows.values()];
          const summary = index.summary();
          expect(summary.total).toBe(all.length);
          expect(summary.hosts).toEqual([...new Set(all.map((r) => r.host))].sort());
          for (const s of STATE_NAMES) {
            expect(summary.byState.get(s) ?? 0).toBe(all.filter((r) => r.state === s).length);
          }
          for (const g of GROUP_NAMES) {
            expect(summary.byGroup.get(g) ?? 0).toBe(all.filter((r) => r.group === g).length);
          }
          expect(index.countOldFinished(5)).toBe(
            all.filter(
              (r) =>
                r.group !== "working" &&
                r.group !== "needs-you" &&
                r.lastEventAt !== null &&
                r.lastEventAt < 5,
            ).length,
          );
          for (const h of ["pi", "codex", "gemini"]) {
            expect(summary.episodesByHost.get(h) ?? 0).toBe(
              all.filter((r) => r.host === h && r.episodeId !== null).length,
            );
          }
          expect(index.inKeyOrder().map((r) => r.key)).toEqual([...rows.keys()].sort());
        },
      ),
    );
  });

  it("sorts again after a change too large to apply row by row", () => {
    const index = new RowIndex();
    const q: OverviewQuery = { ...DEFAULT_QUERY, sort: "open", descending: true };
    for (let i = 0; i < 10; i++) index.set(row(`k${i}`, "pi", "idle", i));
    index.select(q);
    const all: OverviewRow[] = [];
    for (let i = 0; i < 600; i++) {
      const r = row(`k${i % 300}`, "codex", "nudging", i * 7);
      index.set(r);
    }
    for (let i = 0; i < 300; i++) all.push(index.get(`k${i}`)!);
    expect(index.select(q)).toEqual(selectRows(all, q));
  });
});
