import { describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { DecisionLogEntry } from "../core/types.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import {
  type OverviewRow,
  overviewRow,
  problemFromReport,
  problemOf,
  scopeHost,
  unreadableRow,
} from "./view-model.js";

const worker = resolveScope({ kind: "session", host: "claude-code", sessionId: "w1" })!;
const cron = resolveScope({ kind: "cron", jobId: "nightly" })!;

async function rowFor(
  setup: (runtime: ContinuationRuntime) => Promise<void>,
  last: DecisionLogEntry | null = null,
): Promise<OverviewRow> {
  const runtime = new ContinuationRuntime({
    store: new MemoryStore(),
    now: () => 1_000_000,
    limits: { maxAutoTurns: 2 },
  });
  await setup(runtime);
  const snapshot = await runtime.store.read(worker);
  const { decision, summary } = runtime.preview(snapshot);
  return overviewRow({
    scope: worker,
    label: "worker",
    snapshot,
    summary,
    decision,
    last,
    limits: runtime.limits,
    now: runtime.now(),
  });
}

const openWork = async (runtime: ContinuationRuntime) => {
  await runtime.turnStarted(worker, { real: true });
  await runtime.setTodos(worker, [
    { content: "a", status: "pending" },
    { content: "b", status: "completed" },
  ]);
  await runtime.turnEnded(worker, { stopReason: "stop" });
};

describe("overview rows", () => {
  it("names the host of each kind of scope", () => {
    expect(scopeHost(worker)).toBe("claude-code");
    expect(scopeHost(cron)).toBe("cron");
    expect(scopeHost(resolveScope({ kind: "tui" })!)).toBe("tui");
  });

  it("judges the state by the engine's own dry run", async () => {
    expect((await rowFor(openWork)).state).toBe("nudging");
    expect(
      (
        await rowFor(async (r) => {
          await openWork(r);
          await r.stop(worker);
        })
      ).state,
    ).toBe("stopped");
    expect(
      (
        await rowFor((r) =>
          r.setTodos(worker, [{ content: "x", status: "blocked", blockedReason: "review" }]),
        )
      ).state,
    ).toBe("parked");
    expect((await rowFor(async () => {})).state).toBe("idle");
  });

  it("shows a scope that stopped making progress as out of budget, with its bars", async () => {
    const row = await rowFor(async (r) => {
      await openWork(r);
      // A nudge, then a turn that changed nothing: the stagnation budget is spent.
      await r.runIdle(worker, { deliver: () => {} });
      await r.turnEnded(worker, { stopReason: "stop", injected: true });
    });
    expect(row.state).toBe("out-of-budget");
    expect(row.budgets.find((b) => b.name === "nudges")).toEqual({
      name: "nudges",
      used: 1,
      limit: 2,
      fraction: 0.5,
    });
    expect(row.budgets.find((b) => b.name === "stagnation")?.fraction).toBe(1);
    expect(row.episodeId).not.toBeNull();
    expect(row.counts).toMatchObject({ open: 1, done: 1 });
  });

  it("counts what the user added with resume --add, as the engine does", async () => {
    const added = { nudges: 3, tokens: 0, timeMs: 0, costUsd: 0 };
    const row = await rowFor(async (r) => {
      await openWork(r);
      await r.runIdle(worker, { deliver: () => {} });
      await r.raise(worker, added, "+3 nudges");
    });
    const configured = 2;
    expect(row.limits?.maxAutoTurns).toBe(configured + added.nudges);
    expect(row.budgets.find((b) => b.name === "nudges")).toMatchObject({
      used: 1,
      limit: configured + added.nudges,
    });
  });

  it("puts the last decision in words", async () => {
    const last: DecisionLogEntry = {
      at: 5,
      action: "skip",
      reason: "only-blocked-todos",
      episodeId: null,
      autoTurns: 0,
      tokens: 0,
      stagnation: 0,
      actionable: 0,
      blocked: 1,
      nudgeChars: null,
      nudgeTokens: null,
      trigger: "idle",
    };
    expect((await rowFor(openWork, last)).last?.words).toBe("skipped: only blocked items remain");
  });

  it("keeps an unreadable scope as a row naming its preserved copy", () => {
    const error = Object.assign(new Error("state is not JSON"), {
      preservedCopy: "/s/todo/.state/tui.json.corrupt",
    });
    const row = unreadableRow(worker, "worker", problemOf(error));
    expect(row).toMatchObject({
      state: "unreadable",
      problem: {
        message: "state is not JSON",
        preservedCopies: ["/s/todo/.state/tui.json.corrupt"],
        unreadable: true,
      },
    });
    expect(problemOf("plain").preservedCopies).toEqual([]);
  });

  it("tells a document unreadable now from copies kept of earlier ones", () => {
    expect(problemFromReport([])).toBeNull();
    const kept = problemFromReport([
      { document: "todos", location: "/t/tui.json", problem: null, preserved: ["/t/tui.json.1"] },
    ]);
    expect(kept).toMatchObject({ unreadable: false, preservedCopies: ["/t/tui.json.1"] });
    const now = problemFromReport([
      { document: "log", location: "/t/tui.log.jsonl", problem: "too large", preserved: [] },
    ]);
    expect(now).toMatchObject({
      unreadable: true,
      message: "the log at /t/tui.log.jsonl: too large",
    });
  });
});
