import { STATUS_MARK } from "../../core/dialects/display.js";
import { phaseTree } from "../../core/dialects/phases.js";
import type { Todo, TodoList } from "../../core/types.js";
import type { Style } from "../style.js";

function colourFor(todo: Todo, style: Style): (text: string) => string {
  switch (todo.status) {
    case "in_progress":
      return (t) => style.bold(style.cyan(t));
    case "completed":
      return style.green;
    case "cancelled":
      return style.dim;
    case "blocked":
      return style.red;
    case "pending":
      return (t) => t;
  }
}

function itemLines(todo: Todo, indent: string, style: Style): string[] {
  const tags = [
    todo.id === undefined ? null : `#${todo.id}`,
    todo.priority === undefined ? null : todo.priority,
  ].filter((t) => t !== null);
  const suffix = tags.length > 0 ? style.dim(` (${tags.join(", ")})`) : "";
  const mark = `[${STATUS_MARK[todo.status]}]`;
  const lines = [`${indent}${colourFor(todo, style)(`${mark} ${todo.content}`)}${suffix}`];
  const sub = `${indent}    `;
  if (todo.status === "blocked" && todo.blockedReason !== undefined) {
    lines.push(`${sub}${style.red("blocked:")} ${todo.blockedReason}`);
  }
  for (const note of todo.notes ?? []) lines.push(`${sub}${style.dim("> ")}${note}`);
  return lines;
}

/**
 * The list as a tree: phases as headings (in the list's phase order, empty
 * ones included), items with the markdown dialect's checkbox marks, then their
 * blocked reason and notes indented beneath.
 */
export function formatTodoTree(list: TodoList, style: Style): string[] {
  if (list.todos.length === 0 && list.phases.length === 0) return ["(the list is empty)"];
  const lines: string[] = [];
  for (const group of phaseTree(list)) {
    if (group.name === null) {
      for (const todo of group.tasks) lines.push(...itemLines(todo, "", style));
      continue;
    }
    lines.push(style.bold(group.name));
    if (group.tasks.length === 0) lines.push(`  ${style.dim("(no items)")}`);
    for (const todo of group.tasks) lines.push(...itemLines(todo, "  ", style));
  }
  return lines;
}

/** "[ ] pending  [/] in progress  [x] completed  [-] cancelled  [!] blocked". */
export function markLegend(): string {
  return [
    `[${STATUS_MARK.pending}] pending`,
    `[${STATUS_MARK.in_progress}] in progress`,
    `[${STATUS_MARK.completed}] completed`,
    `[${STATUS_MARK.cancelled}] cancelled`,
    `[${STATUS_MARK.blocked}] blocked`,
  ].join("  ");
}
