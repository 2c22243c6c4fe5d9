import { describe, expect, it } from "vitest";
import * as core from "./index.js";

describe("todo-continuation/core", () => {
  it("exports the pieces outside callers compose a decision and the pi dialect from", () => {
    const exported = {
      summarize: core.summarize,
      decide: core.decide,
      resolvePreset: core.resolvePreset,
      emptyState: core.emptyState,
      fromPhaseTree: core.fromPhaseTree,
      phaseTree: core.phaseTree,
      piTools: core.piTools,
      applyPiOps: core.applyPiOps,
      fingerprintIncomplete: core.fingerprintIncomplete,
      sameSummaryInput: core.sameSummaryInput,
    };
    for (const [name, value] of Object.entries(exported)) {
      expect(typeof value, name).toBe("function");
    }
  });

  it("runs a whole decision from a stored list with nothing but those exports", () => {
    const list = core.parseTodoList(
      JSON.parse('{"todos":[{"content":"a","status":"pending"}],"phases":[],"nextId":1}'),
    );
    const state = core.onTurnOutcome(core.onRealUserTurn(core.emptyState(), 1), {
      turnId: "t1",
      stopReason: "stop",
      endedAt: 2,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      injected: false,
      restartCaused: false,
    });
    const decision = core.decide({
      state,
      summary: core.summarize(list),
      signals: {},
      limits: core.resolvePreset("default").limits,
      now: 3,
    });
    expect(decision.action).toBe("inject");
  });
});
