import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DecisionLogEntry } from "../../core/types.js";
import { parseLogEntry, parseLogEntryText } from "./log-entry.js";

const count = fc.nat({ max: 1_000_000 });

const entryArb: fc.Arbitrary<DecisionLogEntry> = fc
  .record(
    {
      at: count,
      action: fc.constantFrom("inject" as const, "skip" as const, "delivery-failed" as const),
      episodeId: fc.option(fc.string({ minLength: 1 }), { nil: null }),
      autoTurns: count,
      tokens: count,
      stagnation: count,
      actionable: count,
      blocked: count,
      nudgeChars: fc.option(count, { nil: null }),
      nudgeTokens: fc.option(count, { nil: null }),
      trigger: fc.string(),
      delivered: fc.boolean(),
      note: fc.string(),
    },
    {
      requiredKeys: [
        "at",
        "action",
        "episodeId",
        "autoTurns",
        "tokens",
        "stagnation",
        "actionable",
        "blocked",
        "nudgeChars",
        "nudgeTokens",
        "trigger",
      ],
    },
  )
  .map((e) => ({ ...e, reason: e.action === "skip" ? ("cooldown" as const) : null }));

describe("parseLogEntry", () => {
  it("round-trips every well-formed entry through JSON", () => {
    fc.assert(
      fc.property(entryArb, (entry) => {
        expect(parseLogEntryText(JSON.stringify(entry))).toEqual(entry);
      }),
    );
  });

  it("drops entries that cannot be trusted", () => {
    const good = fc.sample(entryArb, 1)[0]!;
    expect(parseLogEntry(null)).toBeNull();
    expect(parseLogEntry([good])).toBeNull();
    expect(parseLogEntry({ ...good, at: -1 })).toBeNull();
    expect(parseLogEntry({ ...good, action: "maybe" })).toBeNull();
    expect(parseLogEntry({ ...good, action: "skip", reason: null })).toBeNull();
    expect(parseLogEntry({ ...good, autoTurns: "3" })).toBeNull();
    expect(parseLogEntry({ ...good, nudgeChars: Number.NaN })).toBeNull();
    expect(parseLogEntry({ ...good, trigger: undefined })).toBeNull();
    expect(parseLogEntryText("{not json")).toBeNull();
  });

  it("ignores optional fields of the wrong type instead of dropping the entry", () => {
    const good = fc.sample(entryArb, 1)[0]!;
    const { delivered: _d, note: _n, ...base } = good;
    expect(parseLogEntry({ ...base, delivered: "yes", note: 5 })).toEqual(base);
  });
});
