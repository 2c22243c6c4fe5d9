import { describe, expect, it } from "vitest";
import type { Limits } from "../types.js";
import { decide } from "./decide.js";
import { judgeStagnation, madeProgress } from "./stagnation.js";
import {
  episode,
  LIMITS,
  listOf,
  NOW,
  outcome,
  stateWith,
  summaryOf,
} from "./test-support/fixtures.js";
import { Sim } from "./test-support/sim.js";

const FINGERPRINT: Limits = { ...LIMITS, stagnationMode: "fingerprint", stagnationLimit: 2 };
const STRICT: Limits = { ...LIMITS, stagnationMode: "strict", stagnationLimit: 1 };

function reword(sim: Sim, index: number, content: string): void {
  sim.list = {
    ...sim.list,
    todos: sim.list.todos.map((t, i) => (i === index ? { ...t, content } : t)),
  };
}

describe("stagnation, fingerprint mode (seed 000)", () => {
  it("counts up while the incomplete set is unchanged and skips at the limit", () => {
    const sim = new Sim(FINGERPRINT, listOf("pending", "pending"));
    sim.userAsks().turnEnd();
    expect(sim.idle().action).toBe("inject");
    sim.turnEnd();
    expect(sim.idle().action).toBe("inject");
    expect(sim.state.episode?.stagnation).toBe(1);
    sim.turnEnd();
    expect(sim.idle()).toMatchObject({ action: "skip", reason: "stagnation" });
  });

  it("resets the count when the incomplete set changes", () => {
    const sim = new Sim(FINGERPRINT, listOf("pending", "pending", "pending"));
    sim.userAsks().turnEnd();
    sim.idle();
    sim.turnEnd();
    sim.idle();
    expect(sim.state.episode?.stagnation).toBe(1);
    sim.turnEnd().completeNext();
    expect(sim.idle().action).toBe("inject");
    expect(sim.state.episode?.stagnation).toBe(0);
  });

  it("takes a reword as progress (the seed's heuristic)", () => {
    const sim = new Sim({ ...FINGERPRINT, stagnationLimit: 1 }, listOf("pending", "pending"));
    sim.userAsks().turnEnd();
    sim.idle();
    reword(sim, 0, "item 1, reworded");
    sim.turnEnd();
    expect(sim.idle().action).toBe("inject");
  });

  it("a reorder or whitespace edit is no progress", () => {
    const sim = new Sim({ ...FINGERPRINT, stagnationLimit: 1 }, listOf("pending", "pending"));
    sim.userAsks().turnEnd();
    sim.idle();
    sim.list = { ...sim.list, todos: [...sim.list.todos].reverse() };
    reword(sim, 0, `  ${sim.list.todos[0]?.content}  `);
    sim.turnEnd();
    expect(sim.idle()).toMatchObject({ action: "skip", reason: "stagnation" });
  });
});

describe("stagnation, strict mode", () => {
  it("ends an unproductive episode after one wasted nudge", () => {
    const sim = new Sim(STRICT, listOf("pending", "pending", "pending"));
    sim.userAsks().turnEnd();
    expect(sim.idle().action).toBe("inject");
    sim.turnEnd();
    expect(sim.idle()).toMatchObject({ action: "skip", reason: "stagnation" });
    expect(sim.injectionsThisEpisode).toBe(1);
  });

  it("lets an agent that completes an item every turn carry on", () => {
    const sim = new Sim({ ...STRICT, maxAutoTurns: 100 }, listOf(...Array(30).fill("pending")));
    sim.userAsks().turnEnd();
    while (sim.idle().action === "inject") sim.turnEnd().completeNext();
    expect(sim.lastDecision).toMatchObject({ action: "skip", reason: "no-incomplete-todos" });
    expect(sim.injections).toBe(30);
  });

  it("does not count toggling a status back and forth as progress", () => {
    const sim = new Sim({ ...STRICT, stagnationLimit: 2 }, listOf("pending", "pending", "pending"));
    sim.userAsks().turnEnd();
    sim.idle();
    sim.setStatus(0, "completed").turnEnd();
    expect(sim.idle().action).toBe("inject");
    expect(sim.state.episode?.stagnation).toBe(0);
    sim.setStatus(0, "pending").turnEnd();
    expect(sim.idle().action).toBe("inject");
    expect(sim.state.episode?.stagnation).toBe(1);
    sim.setStatus(0, "completed").turnEnd();
    expect(sim.idle()).toMatchObject({ action: "skip", reason: "stagnation" });
  });

  it("does not count rewording or splitting as progress", () => {
    const sim = new Sim(STRICT, listOf("pending", "pending"));
    sim.userAsks().turnEnd();
    sim.idle();
    reword(sim, 0, "item 1, said differently");
    sim.list = {
      ...sim.list,
      todos: [...sim.list.todos, { content: "item 1, second half", status: "pending" }],
    };
    sim.turnEnd();
    expect(sim.idle()).toMatchObject({ action: "skip", reason: "stagnation" });
  });

  it("counts cancelling an item (fewer incomplete) as progress", () => {
    const sim = new Sim(STRICT, listOf("pending", "pending"));
    sim.userAsks().turnEnd();
    sim.idle();
    sim.setStatus(1, "cancelled").turnEnd();
    expect(sim.idle().action).toBe("inject");
  });

  it("sees no progress when a mark is missing", () => {
    const summary = summaryOf("completed", "pending");
    expect(
      madeProgress(episode({ minIncomplete: null, maxCompleted: null }), summary, "strict"),
    ).toBe(false);
    expect(madeProgress(episode({ lastFingerprint: null }), summary, "fingerprint")).toBe(false);
  });
});

describe("stagnation: when it is judged", () => {
  it("never at the first decision of an episode", () => {
    const verdict = judgeStagnation(null, summaryOf("pending"), STRICT);
    expect(verdict).toEqual({ count: 0, stagnant: false });
  });

  it("not on the retry of a failed delivery", () => {
    const sim = new Sim({ ...STRICT, cooldownBaseMs: 0 }, listOf("pending", "pending"));
    sim.userAsks().turnEnd();
    expect(sim.idle({}, "fail").action).toBe("inject");
    expect(sim.idle().action).toBe("inject");
    expect(sim.state.episode?.stagnation).toBe(0);
  });

  it("a limit of 0 disables it, and the count is still kept", () => {
    const sim = new Sim({ ...STRICT, stagnationLimit: 0 }, listOf("pending"));
    sim.userAsks().turnEnd();
    for (let i = 0; i < 4; i++) {
      expect(sim.idle().action).toBe("inject");
      sim.turnEnd();
    }
    expect(sim.state.episode?.stagnation).toBe(3);
  });

  it("deciding again on the same inputs does not count twice", () => {
    // Stagnant once (below the limit of 2), then held back by a cooldown.
    const input = {
      state: stateWith({
        episode: episode({
          lastFingerprint: summaryOf("pending").fingerprint,
          failures: 1,
          lastFailureAt: NOW,
        }),
        lastOutcome: outcome("t2", { injected: true }),
      }),
      summary: summaryOf("pending"),
      signals: {},
      limits: FINGERPRINT,
      now: NOW,
    };
    const first = decide(input);
    const second = decide({ ...input, state: first.state });
    expect(first).toMatchObject({ action: "skip", reason: "cooldown" });
    expect(second).toMatchObject({ action: "skip", reason: "cooldown" });
    const after = decide({ ...input, state: second.state, now: NOW + 1_000 });
    expect(after.action).toBe("inject");
    expect(after.state.episode?.stagnation).toBe(1);
  });
});
