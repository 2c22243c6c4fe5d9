import { isDeepStrictEqual } from "node:util";
import { parseMarkdown } from "../core/dialects/markdown/index.js";
import { pushReminder } from "../core/engine/transitions.js";
import type { Scope, Store, TodoList } from "../core/types.js";
import { CLEAR_REMINDER, editReminder } from "./edit-reminder.js";

/**
 * A person's hand edits of a list, shared by every front end (the CLI's `edit`
 * and `clear`, the dashboard): the same checks, the same reminder queued in the
 * same write, so the agent learns at its next turn exactly what changed.
 */

/** The list the person started from, and its revision, to detect a concurrent change. */
export interface EditBase {
  todos: TodoList;
  todosRevision: number;
}

export type ListEditOutcome =
  | { kind: "invalid"; line: number; lineText: string; message: string }
  | { kind: "unchanged" }
  | { kind: "empties" }
  | { kind: "conflict"; revision: number }
  | { kind: "saved"; revision: number; reminder: string };

/**
 * Applies an edited markdown list. Refuses, writing nothing: text the parser
 * rejects (with its line), an edit that removes every item (that is `clear`),
 * and an edit of a revision that is no longer current.
 */
export async function applyListEdit(
  store: Store,
  scope: Scope,
  base: EditBase,
  markdown: string,
  now: number,
): Promise<ListEditOutcome> {
  const parsed = parseMarkdown(markdown);
  if (!parsed.ok) {
    const lineText = markdown.split(/\r?\n/)[parsed.line - 1] ?? "";
    return { kind: "invalid", line: parsed.line, lineText, message: parsed.message };
  }
  const after = parsed.list;
  if (isDeepStrictEqual(after, base.todos)) return { kind: "unchanged" };
  if (after.todos.length === 0 && base.todos.todos.length > 0) return { kind: "empties" };
  const reminder = editReminder(base.todos, after);
  return store.transact<ListEditOutcome>(scope, (snap) => {
    if (snap.todosRevision !== base.todosRevision) {
      return { result: { kind: "conflict", revision: snap.todosRevision } };
    }
    const todos: TodoList = { ...after, nextId: Math.max(after.nextId, snap.todos.nextId) };
    return {
      todos,
      state: pushReminder(snap.state, { kind: "user-edit", text: reminder, at: now }),
      result: { kind: "saved", revision: snap.todosRevision + 1, reminder },
    };
  });
}

/**
 * Empties a list (items and phases; ids are not reused) and tells the agent.
 * Continuation state and the decision log stay. Returns how many items went.
 */
export async function clearList(store: Store, scope: Scope, now: number): Promise<number> {
  return store.transact(scope, (snap) => {
    const count = snap.todos.todos.length;
    if (count === 0 && snap.todos.phases.length === 0) return { result: 0 };
    return {
      todos: { todos: [], phases: [], nextId: snap.todos.nextId },
      state:
        count === 0
          ? snap.state
          : pushReminder(snap.state, { kind: "user-edit", text: CLEAR_REMINDER, at: now }),
      result: count,
    };
  });
}
