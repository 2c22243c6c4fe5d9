import { performance } from "node:perf_hooks";
import { emptyState } from "../core/engine/state.js";
import { resolveScope } from "../core/scope/scope.js";
import type { DecisionLogEntry, Scope, TodoList } from "../core/types.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { startDashboard } from "./server.js";

export interface DashboardBenchResult {
  scopes: number;
  /** Reading every scope into the dashboard's picture (once, at start). */
  loadMs: number;
  /** `GET /` for the overview, over HTTP: filter, sort and the page's HTML. */
  overviewMs: number[];
  /** One scope changed: re-read it and serve the overview's live part again. */
  liveUpdateMs: number[];
  /** Bytes of the overview page. */
  pageBytes: number;
}

const HOSTS = ["claude-code", "opencode", "pi", "codex", "gemini"];

function list(i: number): TodoList {
  return {
    todos: Array.from({ length: 8 }, (_, n) => ({
      content: `Task ${n} of scope ${i}`,
      status: n < i % 8 ? "completed" : n === 7 && i % 3 === 0 ? "blocked" : "pending",
      ...(n === 7 && i % 3 === 0 ? { blockedReason: "waiting for review" } : {}),
      id: String(n + 1),
    })),
    phases: [],
    nextId: 9,
  };
}

function entry(at: number, i: number): DecisionLogEntry {
  const inject = i % 2 === 0;
  return {
    at,
    action: inject ? "inject" : "skip",
    reason: inject ? null : "stagnation",
    episodeId: `ep-${i}`,
    autoTurns: 2,
    tokens: 1_000 + i,
    stagnation: 0,
    actionable: 4,
    blocked: 0,
    nudgeChars: inject ? 400 : null,
    nudgeTokens: inject ? 100 : null,
    trigger: "idle",
  };
}

/**
 * The overview of `scopes` scopes (lists, open episodes and logs like real
 * ones), measured through the real server. Scopes live in the memory store:
 * the dashboard serves from its own picture of the store, so what is timed is
 * the dashboard, not the disk.
 */
export async function benchDashboard(scopes = 5_000, runs = 5): Promise<DashboardBenchResult> {
  const store = new MemoryStore();
  const now = Date.now();
  const all: Scope[] = [];
  for (let i = 0; i < scopes; i++) {
    const scope = resolveScope({
      kind: "session",
      host: HOSTS[i % HOSTS.length]!,
      sessionId: `s-${i}`,
    })!;
    all.push(scope);
    await store.transact(scope, () => ({
      todos: list(i),
      state: {
        ...emptyState(),
        stopped: i % 50 === 0,
        episode: {
          id: `ep-${i}`,
          startedAt: now - 60_000,
          autoTurns: i % 5,
          tokens: 1_000 * (i % 7),
          stagnation: 0,
          lastFingerprint: null,
          minIncomplete: null,
          maxCompleted: null,
          lastCountedTurnId: null,
          failures: 0,
          lastInjectionAt: null,
          lastFailureAt: null,
        },
      },
      log: [entry(now - 2_000, i), entry(now - 1_000, i + 1)],
      result: null,
    }));
  }
  const runtime = new ContinuationRuntime({ store });
  const started = performance.now();
  const dashboard = await startDashboard({ runtime, storeDescription: "bench" });
  const loadMs = performance.now() - started;
  const overviewMs: number[] = [];
  const liveUpdateMs: number[] = [];
  let pageBytes = 0;
  try {
    for (let r = 0; r < runs + 1; r++) {
      const t0 = performance.now();
      const page = await (await fetch(dashboard.url)).text();
      const t1 = performance.now();
      pageBytes = page.length;
      const changed = all[(r * 997) % all.length]!;
      await store.transact(changed, (s) => ({
        state: { ...s.state, stopped: !s.state.stopped },
        result: null,
      }));
      const t2 = performance.now();
      await dashboard.source.refresh([changed.key]);
      await (await fetch(new URL(`/?fragment=1&token=${dashboard.token}`, dashboard.url))).text();
      const t3 = performance.now();
      // The first run warms the JIT; it is not counted.
      if (r === 0) continue;
      overviewMs.push(t1 - t0);
      liveUpdateMs.push(t3 - t2);
    }
  } finally {
    await dashboard.close();
  }
  return { scopes, loadMs, overviewMs, liveUpdateMs, pageBytes };
}
