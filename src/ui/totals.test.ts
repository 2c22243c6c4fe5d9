import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { DecisionLogEntry, Scope } from "../core/types.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { createFileStore } from "../store/file/index.js";
import { startDashboard } from "./server.js";
import { dayOf, logTotals, TotalsBook } from "./totals.js";

const DAY = 86_400_000;
const D1 = Date.UTC(2026, 10, 24, 12);
const D2 = D1 + DAY;

function entry(at: number, over: Partial<DecisionLogEntry> = {}): DecisionLogEntry {
  return {
    at,
    action: "inject",
    reason: null,
    episodeId: "ep-1",
    autoTurns: 1,
    tokens: 0,
    stagnation: 0,
    actionable: 2,
    blocked: 0,
    nudgeChars: 100,
    nudgeTokens: 25,
    trigger: "idle",
    ...over,
  };
}

describe("logTotals", () => {
  it("counts nudges per UTC day and the growth of each episode's running spend", () => {
    const days = logTotals([
      entry(D1, { tokens: 1_000, costUsd: 0.1 }),
      entry(D1 + 1, { tokens: 3_000, autoTurns: 2, costUsd: 0.3 }),
      entry(D1 + 2, { action: "delivery-failed", tokens: 0 }),
      // A second episode starts from its own zero.
      entry(D2, { episodeId: "ep-2", tokens: 500 }),
      entry(D2 + 1, { action: "skip", reason: "max-tokens", tokens: 3_200, costUsd: 0.35 }),
    ]);
    expect(days.get(dayOf(D1))).toEqual({ nudges: 2, tokens: 3_000, costUsd: 0.3, priced: true });
    const second = days.get(dayOf(D2))!;
    expect(second.nudges).toBe(1);
    expect(second.tokens).toBe(700);
    expect(second.costUsd).toBeCloseTo(0.05);
  });

  it("gives the same totals however the shares are replaced", () => {
    const book = new TotalsBook();
    book.set("a", "pi", [entry(D1, { tokens: 10 })]);
    book.set("b", "pi", [entry(D1, { tokens: 5, action: "skip", reason: "stagnation" })]);
    book.set("a", "pi", [entry(D1, { tokens: 10 }), entry(D2, { tokens: 30 })]);
    book.delete("b");
    book.set("c", "codex", [entry(D2, { tokens: 7, action: "skip", reason: "cooldown" })]);
    expect(book.rows()).toEqual([
      { day: dayOf(D2), host: "codex", nudges: 0, tokens: 7, costUsd: 0, priced: false },
      { day: dayOf(D2), host: "pi", nudges: 1, tokens: 20, costUsd: 0, priced: false },
      { day: dayOf(D1), host: "pi", nudges: 1, tokens: 10, costUsd: 0, priced: false },
    ]);
    book.delete("a");
    book.delete("c");
    expect(book.rows()).toEqual([]);
  });
});

describe("totals from a file store's logs", () => {
  let dir = "";
  afterEach(async () => {
    if (dir !== "") await rm(dir, { recursive: true, force: true });
    dir = "";
  });

  async function totalsOf(root: string) {
    const store = createFileStore({ root });
    const runtime = new ContinuationRuntime({ store });
    const dashboard = await startDashboard({ runtime, storeDescription: "test" });
    try {
      const url = new URL(`/api/totals?token=${dashboard.token}`, dashboard.url);
      return { body: (await (await fetch(url)).json()) as { totals: unknown[] }, dashboard, store };
    } finally {
      await dashboard.close();
      await store.close();
    }
  }

  it("reads the same totals after a restart, and follows a new decision like a fresh read", async () => {
    dir = await mkdtemp(join(tmpdir(), "tc-totals-"));
    const store = createFileStore({ root: dir });
    const scopes: Scope[] = [
      resolveScope({ kind: "session", host: "claude-code", sessionId: "a" })!,
      resolveScope({ kind: "session", host: "codex", sessionId: "b" })!,
    ];
    for (const [i, scope] of scopes.entries()) {
      await store.transact(scope, () => ({
        todos: { todos: [{ content: "work", status: "pending", id: "1" }], phases: [], nextId: 2 },
        log: [
          entry(D1, { tokens: 1_000 * (i + 1) }),
          entry(D1 + 60_000, { tokens: 4_000 * (i + 1), autoTurns: 2, costUsd: 0.25 }),
          entry(D2, { tokens: 5_000 * (i + 1), autoTurns: 3, costUsd: 0.5 }),
        ],
        result: null,
      }));
    }
    const first = await totalsOf(dir);
    const second = await totalsOf(dir);
    expect(second.body).toEqual(first.body);
    expect(first.body.totals).toContainEqual({
      day: dayOf(D1),
      host: "codex",
      nudges: 2,
      tokens: 8_000,
      costUsd: 0.25,
      priced: true,
    });
    expect(first.body.totals).toContainEqual({
      day: dayOf(D2),
      host: "claude-code",
      nudges: 1,
      tokens: 1_000,
      costUsd: 0.25,
      priced: true,
    });

    // A running dashboard takes in a new decision; a fresh one reading the logs agrees.
    const runtime = new ContinuationRuntime({ store: createFileStore({ root: dir }) });
    const live = await startDashboard({ runtime, storeDescription: "test" });
    try {
      await store.transact(scopes[0]!, () => ({
        log: [entry(D2 + 1, { tokens: 9_000, autoTurns: 4, costUsd: 0.75 })],
        result: null,
      }));
      await live.source.refresh([scopes[0]!.key]);
      const fresh = await totalsOf(dir);
      expect(live.source.totals()).toEqual(fresh.body.totals);
    } finally {
      await live.close();
      await runtime.store.close?.();
      await store.close();
    }
  });
});
