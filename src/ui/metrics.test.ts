import { describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { DecisionLogEntry, Episode } from "../core/types.js";
import { DecisionCounters, renderMetrics } from "./metrics.js";
import { newEntries } from "./scope-source.js";

const scope = resolveScope({ kind: "session", host: "pi", sessionId: "a" })!;

function entry(
  at: number,
  action: DecisionLogEntry["action"],
  reason: DecisionLogEntry["reason"] = null,
): DecisionLogEntry {
  return {
    at,
    action,
    reason,
    episodeId: "ep",
    autoTurns: 1,
    tokens: 0,
    stagnation: 0,
    actionable: 1,
    blocked: 0,
    nudgeChars: null,
    nudgeTokens: null,
    trigger: "idle",
  };
}

function episode(id: string, tokens: number): Episode {
  return {
    id,
    startedAt: 0,
    autoTurns: 1,
    tokens,
    stagnation: 0,
    lastFingerprint: null,
    minIncomplete: null,
    maxCompleted: null,
    lastCountedTurnId: null,
    failures: 0,
    lastInjectionAt: null,
    lastFailureAt: null,
  };
}

describe("metrics", () => {
  it("counts new decisions by host and reason, and token growth of episodes", () => {
    const counters = new DecisionCounters();
    counters.count(scope, [entry(1, "inject"), entry(2, "skip", "stagnation"), entry(3, "inject")]);
    counters.setEpisode(scope, episode("e1", 100));
    counters.setEpisode(scope, episode("e1", 350));
    counters.setEpisode(scope, episode("e2", 40));
    const text = renderMetrics(counters, []);
    expect(text).toContain('todo_continuation_nudges_total{host="pi"} 2');
    expect(text).toContain('todo_continuation_skips_total{host="pi",reason="stagnation"} 1');
    // 250 more in e1, then e2's 40 from its start; the first look is the baseline.
    expect(text).toContain('todo_continuation_continuation_tokens_total{host="pi"} 290');
    expect(text).toMatch(/^# TYPE todo_continuation_skips_total counter$/m);
    expect(text.endsWith("\n")).toBe(true);
  });

  it("finds the entries after the newest one seen, or all when it is gone", () => {
    const log = [entry(1, "inject"), entry(2, "skip", "cooldown"), entry(3, "inject")];
    expect(newEntries(log, log[1]!)).toEqual([log[2]]);
    expect(newEntries(log, log[2]!)).toEqual([]);
    expect(newEntries(log, null)).toEqual(log);
    expect(newEntries(log, entry(9, "inject"))).toEqual(log);
  });
});
