import type { Todo, TodoList, TodoStatus } from "../types.js";

/** A fresh list: no todos, no phases, parley ids start at 1. */
export function emptyList(): TodoList {
  return { todos: [], phases: [], nextId: 1 };
}

/** Not completed and not cancelled: the set the fingerprint covers. */
export function isIncomplete(status: TodoStatus): boolean {
  return status !== "completed" && status !== "cancelled";
}

/** Pending or in progress: the only statuses that drive continuation. */
export function isActionable(status: TodoStatus): boolean {
  return status === "pending" || status === "in_progress";
}

export function incompleteTodos(list: TodoList): Todo[] {
  return list.todos.filter((t) => isIncomplete(t.status));
}

export function actionableTodos(list: TodoList): Todo[] {
  return list.todos.filter((t) => isActionable(t.status));
}

/** Whitespace other than a lone inner space: what canonicalization would change. */
const NOT_CANONICAL = /[^\S ]| {2}|^ | $/;

/** Collapses runs of whitespace and trims: the canonical text of an item. */
export function canonicalText(text: string): string {
  // Most texts are canonical already: a test is cheaper than a replace and a trim.
  if (!NOT_CANONICAL.test(text)) return text;
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Phase names in display order: the list's declared order first (empty phases
 * included), then any phase a todo names that the order does not.
 */
export function orderedPhases(list: TodoList): string[] {
  const seen = new Set(list.phases);
  const out = [...list.phases];
  for (const todo of list.todos) {
    if (todo.phase !== undefined && !seen.has(todo.phase)) {
      seen.add(todo.phase);
      out.push(todo.phase);
    }
  }
  return out;
}

/**
 * The list as the model should see it after a resume: finished items dropped,
 * so an old session does not re-read a wall of completed work.
 */
export function withoutFinished(list: TodoList): TodoList {
  return { ...list, todos: list.todos.filter((t) => isIncomplete(t.status)) };
}
