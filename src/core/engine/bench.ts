import { parseTodoList } from "../todo/parse.js";
import { summarize } from "../todo/summary.js";
import type { ContinuationState, DecisionInput, Limits, Todo, TodoList } from "../types.js";
import { decide } from "./decide.js";
import { PRESETS } from "./presets.js";
import { emptyState } from "./state.js";

/**
 * Timing helpers for the bench harness. This is the one file under src/core
 * that reads a clock; nothing in the engine imports it.
 */

/** A list of `count` todos in a realistic mix: a third done, one in progress, a few blocked. */
export function benchList(count: number): TodoList {
  const todos: Todo[] = [];
  for (let i = 0; i < count; i++) {
    const id = String(i + 1);
    const content = `Step ${i + 1}: update module ${i % 17} and its tests`;
    if (i < count / 3) todos.push({ id, content, status: "completed" });
    else if (i === Math.ceil(count / 3)) todos.push({ id, content, status: "in_progress" });
    else if (i % 9 === 0) todos.push({ id, content, status: "blocked", blockedReason: "waiting" });
    else todos.push({ id, content, status: "pending", priority: "medium" });
  }
  return { todos, phases: [], nextId: count + 1 };
}

/** Mid-episode state: two nudges delivered, a fresh safe outcome to answer. */
function benchState(now: number): ContinuationState {
  return {
    ...emptyState(),
    episode: {
      id: "ep-bench",
      startedAt: now - 60_000,
      autoTurns: 2,
      tokens: 12_000,
      stagnation: 0,
      lastFingerprint: "0".repeat(64),
      minIncomplete: 1_000_000,
      maxCompleted: 0,
      lastCountedTurnId: "t-1",
      failures: 0,
      lastInjectionAt: now - 30_000,
      lastFailureAt: null,
      answeredTurnId: "t-1",
    },
    lastOutcome: {
      turnId: "t-2",
      stopReason: "stop",
      endedAt: now - 1_000,
      usage: { input: 800, output: 1_200, cacheRead: 40_000, cacheWrite: 2_000, total: 44_000 },
      injected: true,
      restartCaused: false,
    },
    lastUserTurnAt: now - 120_000,
  };
}

function elapsedMicros(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1_000;
}

/**
 * Per-call microseconds of `decide()` on a mid-episode state and the summary
 * of a `todoCount`-item list (summarized once, as the runtime does per list
 * revision). The first 10% of calls warm the JIT and are not reported.
 */
export function benchDecide(todoCount: number, iterations: number): number[] {
  const now = 1_700_000_000_000;
  const limits: Limits = PRESETS.default.limits;
  const input: DecisionInput = {
    state: benchState(now),
    summary: summarize(benchList(todoCount)),
    signals: {},
    limits,
    now,
  };
  const times: number[] = [];
  let injected = 0;
  const warmup = Math.ceil(iterations / 10);
  for (let i = -warmup; i < iterations; i++) {
    const start = process.hrtime.bigint();
    const decision = decide(input);
    const micros = elapsedMicros(start);
    if (decision.action === "inject") injected++;
    if (i >= 0) times.push(micros);
  }
  if (injected !== iterations + warmup) throw new Error("benchDecide: the bench state must inject");
  return times;
}

/** Per-call microseconds of `summarize()` (counts + fingerprint) on a `todoCount`-item list. */
export function benchSummarize(todoCount: number, iterations: number): number[] {
  const list = benchList(todoCount);
  const times: number[] = [];
  let sink = 0;
  const warmup = Math.ceil(iterations / 10);
  for (let i = -warmup; i < iterations; i++) {
    const start = process.hrtime.bigint();
    sink += summarize(list).incomplete;
    const micros = elapsedMicros(start);
    if (i >= 0) times.push(micros);
  }
  if (sink < 0) throw new Error("unreachable");
  return times;
}

/**
 * Per-call microseconds of a whole decision, `summarize()` then `decide()`,
 * on a list freshly read for every call: each iteration parses the stored
 * JSON text again (untimed), as a store read does, so no object and no
 * string is shared between calls and nothing can be cached on them.
 */
export function benchWholeDecision(todoCount: number, iterations: number): number[] {
  const now = 1_700_000_000_000;
  const limits: Limits = PRESETS.default.limits;
  const state = benchState(now);
  const stored = JSON.stringify(benchList(todoCount));
  const times: number[] = [];
  let injected = 0;
  const warmup = Math.ceil(iterations / 10);
  for (let i = -warmup; i < iterations; i++) {
    const list = parseTodoList(JSON.parse(stored));
    const start = process.hrtime.bigint();
    const summary = summarize(list);
    const decision = decide({ state, summary, signals: {}, limits, now });
    const micros = elapsedMicros(start);
    if (decision.action === "inject") injected++;
    if (i >= 0) times.push(micros);
  }
  if (injected !== iterations + warmup) {
    throw new Error("benchWholeDecision: the bench state must inject");
  }
  return times;
}
