import { canonicalText } from "../todo/model.js";
import type { Todo, TodoStatus } from "../types.js";

/** Checkbox marks, shared by tool results and the markdown format. */
export const STATUS_MARK: Record<TodoStatus, string> = {
  pending: " ",
  in_progress: "/",
  completed: "x",
  cancelled: "-",
  blocked: "!",
};

const STATUS_WORDS: readonly [TodoStatus, string][] = [
  ["in_progress", "in progress"],
  ["pending", "pending"],
  ["blocked", "blocked"],
  ["completed", "completed"],
  ["cancelled", "cancelled"],
];

export type StatusCounts = Record<TodoStatus, number>;

export function countStatuses(todos: readonly Todo[]): StatusCounts {
  const counts: StatusCounts = {
    pending: 0,
    in_progress: 0,
    completed: 0,
    cancelled: 0,
    blocked: 0,
  };
  for (const todo of todos) counts[todo.status]++;
  return counts;
}

/** "1 in progress, 2 pending, 1 completed": zero counts are left out. */
export function describeCounts(counts: StatusCounts): string {
  return STATUS_WORDS.filter(([status]) => counts[status] > 0)
    .map(([status, word]) => `${counts[status]} ${word}`)
    .join(", ");
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** One line of display text: whitespace collapsed, blocked reason appended. */
export function itemText(todo: Todo): string {
  const text = canonicalText(todo.content);
  if (todo.status !== "blocked") return text;
  return `${text} (blocked: ${canonicalText(todo.blockedReason ?? "")})`;
}

/** `[/] Write the parser (blocked: ...)`. */
export function checkboxLine(todo: Todo): string {
  return `[${STATUS_MARK[todo.status]}] ${itemText(todo)}`;
}
