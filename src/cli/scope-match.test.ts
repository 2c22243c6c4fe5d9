import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { editDistance } from "./edit-distance.js";
import { matchScope, nearMatches, type ScopeCandidate } from "./scope-match.js";

function candidate(key: string, ...names: string[]): ScopeCandidate<string> {
  return { value: key, key, names };
}

const scopes = [
  candidate("tui", "tui"),
  candidate("cron/snightly", "cron nightly"),
  candidate("session/sclaude-code:sabc123", "claude-code session abc123", "abc123"),
  candidate("session/sclaude-code:sabd999", "claude-code session abd999", "abd999"),
];

function keyOf(match: ReturnType<typeof matchScope<string>>): string | null {
  return match.kind === "found" ? match.candidate.key : null;
}

describe("matchScope", () => {
  it("finds a scope by its full key", () => {
    expect(keyOf(matchScope("cron/snightly", scopes))).toBe("cron/snightly");
  });

  it("finds a scope by its label, ignoring case", () => {
    expect(keyOf(matchScope("Cron Nightly", scopes))).toBe("cron/snightly");
  });

  it("finds a scope by a unique prefix of its key or of a name", () => {
    expect(keyOf(matchScope("cron", scopes))).toBe("cron/snightly");
    expect(keyOf(matchScope("abc", scopes))).toBe("session/sclaude-code:sabc123");
    expect(keyOf(matchScope("claude-code session abd", scopes))).toBe(
      "session/sclaude-code:sabd999",
    );
  });

  it("reports every candidate of an ambiguous prefix", () => {
    const match = matchScope("session/", scopes);
    expect(match.kind).toBe("ambiguous");
    if (match.kind === "ambiguous") expect(match.candidates.map((c) => c.value)).toHaveLength(2);
  });

  it("prefers an exact key over a longer key it prefixes", () => {
    const withLonger = [...scopes, candidate("tui2", "second tui")];
    expect(keyOf(matchScope("tui", withLonger))).toBe("tui");
  });

  it("offers near spellings when nothing matches", () => {
    const match = matchScope("abx123", scopes);
    expect(match.kind).toBe("missing");
    if (match.kind === "missing") {
      expect(match.near.map((c) => c.value)).toEqual(["session/sclaude-code:sabc123"]);
    }
  });

  it("treats an empty name as missing, never as a prefix of everything", () => {
    expect(matchScope("", scopes).kind).toBe("missing");
  });

  it("always finds each scope by its own key", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1 }),
        (keys) => {
          const list = keys.map((k) => candidate(k));
          for (const k of keys) expect(keyOf(matchScope(k, list))).toBe(k);
        },
      ),
    );
  });
});

describe("nearMatches", () => {
  it("returns nothing for a name far from every scope", () => {
    expect(nearMatches("zzzzzzzzzz", scopes)).toEqual([]);
  });

  it("ranks closer spellings first", () => {
    const near = nearMatches("tiu", scopes);
    expect(near[0]?.key).toBe("tui");
  });
});

describe("editDistance", () => {
  it("counts single edits", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("same", "SAME")).toBe(0);
  });

  it("is symmetric", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), (a, b) => {
        expect(editDistance(a, b)).toBe(editDistance(b, a));
      }),
    );
  });
});
