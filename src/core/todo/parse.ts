import { TODO_STATUSES, type Todo, type TodoList, type TodoPriority } from "../types.js";
import { emptyList } from "./model.js";

const PRIORITIES: readonly string[] = ["high", "medium", "low"];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown): string | undefined | null {
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : null;
}

/**
 * Reads one stored todo, or null when it cannot be trusted. Stored files are
 * hand-editable, so a bad entry is dropped rather than allowed to crash the
 * engine or reach the model as trusted state.
 */
export function parseTodo(raw: unknown): Todo | null {
  if (!isRecord(raw)) return null;
  const { content, status } = raw;
  if (typeof content !== "string" || content.trim() === "") return null;
  if (typeof status !== "string" || !(TODO_STATUSES as readonly string[]).includes(status)) {
    return null;
  }
  const todo: Todo = { content, status: status as Todo["status"] };
  const id = optionalString(raw.id);
  if (id === null) return null;
  if (id !== undefined) todo.id = id;
  if (raw.priority !== undefined) {
    if (typeof raw.priority !== "string" || !PRIORITIES.includes(raw.priority)) return null;
    todo.priority = raw.priority as TodoPriority;
  }
  for (const field of ["phase", "blockedReason", "activeForm"] as const) {
    const value = optionalString(raw[field]);
    if (value === null) return null;
    if (value !== undefined) todo[field] = value;
  }
  if (raw.notes !== undefined) {
    if (!Array.isArray(raw.notes) || !raw.notes.every((n) => typeof n === "string")) return null;
    if (raw.notes.length > 0) todo.notes = [...raw.notes];
  }
  if (todo.status === "blocked" && (todo.blockedReason ?? "").trim() === "") return null;
  return todo;
}

/**
 * Reads a stored list, failing closed: anything that is not a list document is
 * the empty list; malformed entries are dropped and the rest kept.
 */
export function parseTodoList(raw: unknown): TodoList {
  const list = emptyList();
  if (!isRecord(raw)) return list;
  if (Array.isArray(raw.todos)) {
    for (const entry of raw.todos) {
      const todo = parseTodo(entry);
      if (todo) list.todos.push(todo);
    }
  }
  if (Array.isArray(raw.phases)) {
    const seen = new Set<string>();
    for (const phase of raw.phases) {
      if (typeof phase === "string" && !seen.has(phase)) {
        seen.add(phase);
        list.phases.push(phase);
      }
    }
  }
  let maxNumericId = 0;
  for (const todo of list.todos) {
    const n = todo.id !== undefined && /^\d{1,15}$/.test(todo.id) ? Number(todo.id) : 0;
    if (n > maxNumericId) maxNumericId = n;
  }
  const nextId =
    typeof raw.nextId === "number" && Number.isSafeInteger(raw.nextId) && raw.nextId > 0
      ? raw.nextId
      : 1;
  // Ids are never reused, even if a hand edit lowered the counter.
  list.nextId = Math.max(nextId, maxNumericId + 1);
  return list;
}
