import { AFTER_ANSWER } from "../../../core/resident.js";
import type { DecisionLogEntry, TodoList } from "../../../core/types.js";

/** A list of pending items with these contents. */
export function list(...contents: string[]): TodoList {
  return {
    todos: contents.map((content) => ({ content, status: "pending" })),
    phases: [],
    nextId: 1,
  };
}

/** A decision-log entry (a skip for stagnation) made at `at`, with `fields` changed. */
export function entry(at: number, fields: Partial<DecisionLogEntry> = {}): DecisionLogEntry {
  return {
    at,
    action: "skip",
    reason: "stagnation",
    episodeId: null,
    autoTurns: 0,
    tokens: 0,
    stagnation: 2,
    actionable: 1,
    blocked: 0,
    nudgeChars: null,
    nudgeTokens: null,
    trigger: "idle",
    ...fields,
  };
}

/** As the resident server does around an event: a queue, drained after the answer. */
export function inServerEvent(): { drain(): number } {
  const globals = globalThis as Record<symbol, unknown>;
  const queue: (() => void)[] = [];
  globals[AFTER_ANSWER] = queue;
  return {
    drain() {
      delete globals[AFTER_ANSWER];
      for (const task of queue) task();
      return queue.length;
    },
  };
}
