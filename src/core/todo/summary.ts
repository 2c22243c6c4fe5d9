import { createHash } from "node:crypto";
import type { Todo, TodoList, TodoSummary } from "../types.js";
import { canonicalText, isIncomplete } from "./model.js";

/**
 * Canonical line of one incomplete item. Items with an id sort by id, the rest
 * by their text, so a pure reorder or whitespace-only edit keeps the
 * fingerprint while any change of text, id or status moves it.
 */
function canonicalLine(todo: Todo): { sortKey: string; line: string } {
  const text = canonicalText(todo.content);
  const id = todo.id === undefined ? null : canonicalText(todo.id);
  const sortKey = id === null ? `t:${text}` : `i:${id}`;
  // JSON keeps the separator unambiguous whatever the text contains.
  return { sortKey, line: JSON.stringify([id, text, todo.status]) };
}

/** SHA-256 (hex) of the canonical incomplete set. */
export function fingerprintIncomplete(todos: readonly Todo[]): string {
  const lines: { sortKey: string; line: string }[] = [];
  for (const todo of todos) if (isIncomplete(todo.status)) lines.push(canonicalLine(todo));
  lines.sort((a, b) =>
    a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : a.line < b.line ? -1 : 1,
  );
  // One update over the joined text: hashing line by line costs a native call per item.
  let text = "";
  for (const { line } of lines) text += `${line}\n`;
  return createHash("sha256").update(text).digest("hex");
}

/** Counts and fingerprint of a list; the engine decides on this, not on the raw list. */
export function summarize(list: TodoList): TodoSummary {
  let actionable = 0;
  let blocked = 0;
  let completed = 0;
  let cancelled = 0;
  for (const todo of list.todos) {
    switch (todo.status) {
      case "pending":
      case "in_progress":
        actionable++;
        break;
      case "blocked":
        blocked++;
        break;
      case "completed":
        completed++;
        break;
      case "cancelled":
        cancelled++;
        break;
    }
  }
  return {
    total: list.todos.length,
    actionable,
    blocked,
    completed,
    cancelled,
    incomplete: actionable + blocked,
    fingerprint: fingerprintIncomplete(list.todos),
  };
}
