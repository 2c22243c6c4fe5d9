import { summarize } from "../../todo/summary.js";
import type {
  ContinuationState,
  DecisionInput,
  Episode,
  Limits,
  Todo,
  TodoList,
  TodoStatus,
  TodoSummary,
  TurnOutcome,
} from "../../types.js";
import { emptyState, zeroUsage } from "../state.js";

export const NOW = 10_000_000;

/** Small, explicit limits so tests do not move when a preset is retuned. */
export const LIMITS: Limits = {
  maxAutoTurns: 5,
  maxTokens: 10_000,
  maxWallClockMs: 60_000,
  stagnationLimit: 2,
  stagnationMode: "fingerprint",
  tokenMode: "spend",
  maxIncomplete: null,
  maxCostUsd: null,
  cooldownBaseMs: 1_000,
  cooldownMaxMs: 8_000,
  maxDeliveryFailures: 3,
  maxErrorRetries: 1,
  errorBackoffMs: 5_000,
};

export function listOf(...statuses: TodoStatus[]): TodoList {
  const todos: Todo[] = statuses.map((status, i) => ({
    id: String(i + 1),
    content: `item ${i + 1}`,
    status,
    ...(status === "blocked" ? { blockedReason: "waiting on review" } : {}),
  }));
  return { todos, phases: [], nextId: statuses.length + 1 };
}

export function summaryOf(...statuses: TodoStatus[]): TodoSummary {
  return summarize(listOf(...statuses));
}

export function outcome(turnId: string, overrides: Partial<TurnOutcome> = {}): TurnOutcome {
  return {
    turnId,
    stopReason: "stop",
    endedAt: NOW - 1_000,
    usage: zeroUsage(),
    injected: false,
    restartCaused: false,
    ...overrides,
  };
}

/** An episode one nudge in, that nudge answering turn `t1`. */
export function episode(overrides: Partial<Episode> = {}): Episode {
  return {
    id: "ep-test",
    startedAt: NOW - 10_000,
    autoTurns: 1,
    tokens: 0,
    stagnation: 0,
    lastFingerprint: null,
    minIncomplete: null,
    maxCompleted: null,
    lastCountedTurnId: "t1",
    failures: 0,
    lastInjectionAt: NOW - 5_000,
    lastFailureAt: null,
    answeredTurnId: "t1",
    ...overrides,
  };
}

export function stateWith(overrides: Partial<ContinuationState> = {}): ContinuationState {
  return { ...emptyState(), ...overrides };
}

/** A decision input that injects: two pending items, a safe outcome, no episode yet. */
export function injectable(overrides: Partial<DecisionInput> = {}): DecisionInput {
  return {
    state: stateWith({ lastOutcome: outcome("t1") }),
    summary: summaryOf("pending", "pending"),
    signals: {},
    limits: LIMITS,
    now: NOW,
    ...overrides,
  };
}
