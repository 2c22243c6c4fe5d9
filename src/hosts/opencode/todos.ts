import type { Todo, TodoPriority } from "../../core/types.js";

const STATUSES = new Set(["pending", "in_progress", "completed", "cancelled"]);
const PRIORITIES = new Set(["high", "medium", "low"]);

/**
 * OpenCode's todo list (`{content, status, priority}` items) in the project's
 * model. OpenCode keeps no ids, so items are identified by their content and
 * position, and any id a host version sends is ignored. An item whose status
 * OpenCode may add later is kept as blocked, with the status named: it stays
 * visible but never drives a nudge. Items without text are dropped. Anything
 * that is not a list is an error, so a broken response is never read as
 * "nothing left to do" or as work to push for.
 */
export function todosFromOpenCode(raw: unknown): Todo[] {
  if (!Array.isArray(raw)) {
    throw new Error(
      `OpenCode todo list must be an array, got ${raw === null ? "null" : typeof raw}`,
    );
  }
  const todos: Todo[] = [];
  for (const item of raw) {
    if (typeof item !== "object" || item === null) continue;
    const { content, status, priority } = item as Record<string, unknown>;
    if (typeof content !== "string" || content.trim() === "") continue;
    const todo: Todo =
      typeof status === "string" && STATUSES.has(status)
        ? { content, status: status as Todo["status"] }
        : {
            content,
            status: "blocked",
            blockedReason: `OpenCode status ${JSON.stringify(status ?? null)} is not one this integration knows`,
          };
    if (typeof priority === "string" && PRIORITIES.has(priority)) {
      todo.priority = priority as TodoPriority;
    }
    todos.push(todo);
  }
  return todos;
}
