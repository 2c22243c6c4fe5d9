import type { Todo, TodoList } from "../types.js";

/** The same numeric-id rule the list parser applies (`parseTodoList`). */
const NUMERIC_ID = /^\d{1,15}$/;

/** One past the largest numeric id in `todos` (1 when there is none). */
export function minNextId(todos: readonly Todo[]): number {
  let max = 0;
  for (const todo of todos) {
    if (todo.id !== undefined && NUMERIC_ID.test(todo.id)) max = Math.max(max, Number(todo.id));
  }
  return max + 1;
}

/**
 * The next id to hand out. Never below the list's counter nor at or below an
 * id in use, so ids stay unique even for a list whose counter was lowered.
 */
export function nextFreeId(list: TodoList): number {
  return Math.max(list.nextId, minNextId(list.todos));
}
