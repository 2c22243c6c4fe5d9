import { isDeepStrictEqual } from "node:util";
import { renderMarkdown } from "../core/dialects/markdown/index.js";
import { canonicalText } from "../core/todo/model.js";
import type { Todo, TodoList } from "../core/types.js";

/** Changes listed one by one in a reminder; the rest are counted. */
export const MAX_REMINDER_CHANGES = 20;

/** Longest list text quoted in a reminder; a longer list is cut with a pointer to the tools. */
export const MAX_REMINDER_LIST_CHARS = 4000;

const STATUS_WORDS: Record<Todo["status"], string> = {
  pending: "pending",
  in_progress: "in progress",
  completed: "completed",
  cancelled: "cancelled",
  blocked: "blocked",
};

function identity(todo: Todo): string {
  return todo.id !== undefined ? `id:${todo.id}` : `text:${canonicalText(todo.content)}`;
}

function quoteItem(todo: Todo): string {
  const text = canonicalText(todo.content);
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

/**
 * What a hand edit changed, item by item: added, removed, status changes and
 * rewordings (items matched by id, else by their text). Phase, note and order
 * changes are summed up in one clause.
 */
export function describeChanges(before: TodoList, after: TodoList): string[] {
  const old = new Map<string, Todo>();
  for (const todo of before.todos) if (!old.has(identity(todo))) old.set(identity(todo), todo);
  const seen = new Set<string>();
  const changes: string[] = [];
  for (const todo of after.todos) {
    const key = identity(todo);
    const prev = old.get(key);
    if (prev === undefined || seen.has(key)) {
      changes.push(`added ${quoteItem(todo)} (${STATUS_WORDS[todo.status]})`);
      continue;
    }
    seen.add(key);
    if (canonicalText(prev.content) !== canonicalText(todo.content)) {
      changes.push(`reworded ${quoteItem(prev)} to ${quoteItem(todo)}`);
    }
    if (prev.status !== todo.status) {
      const reason =
        todo.status === "blocked" && todo.blockedReason
          ? ` (${canonicalText(todo.blockedReason)})`
          : "";
      changes.push(`${quoteItem(todo)} is now ${STATUS_WORDS[todo.status]}${reason}`);
    }
  }
  for (const [key, todo] of old) if (!seen.has(key)) changes.push(`removed ${quoteItem(todo)}`);
  if (changes.length === 0 && !isDeepStrictEqual(before, after)) {
    changes.push("changed phases, notes or the order of items");
  }
  return changes;
}

/** The message queued for the model's next turn after a hand edit (seed 004's user-edit reminder). */
export function editReminder(before: TodoList, after: TodoList): string {
  const all = describeChanges(before, after);
  const changes = all.slice(0, MAX_REMINDER_CHANGES);
  if (all.length > changes.length) changes.push(`and ${all.length - changes.length} more`);
  let list = renderMarkdown(after).trimEnd();
  if (list.length > MAX_REMINDER_LIST_CHARS) {
    list = `${list.slice(0, MAX_REMINDER_LIST_CHARS)}\n... (cut; read the whole list with your todo tools)`;
  }
  return [
    "The user edited your todo list by hand. Treat their version as the truth and do not undo it.",
    `Changes: ${changes.length > 0 ? changes.join("; ") : "none that affect items"}.`,
    "The list now reads:",
    list === "" ? "(empty)" : list,
  ].join("\n");
}

export const CLEAR_REMINDER =
  "The user cleared your todo list by hand. Do not recreate the old items unless the user asks for them.";
