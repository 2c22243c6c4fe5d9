import type { Todo, TodoList } from "../types.js";
import { budgetLine } from "./budget-line.js";
import { describeItem, moreLine, nudgeItems } from "./items.js";
import type { NudgeContext } from "./types.js";

function line(todo: Todo): string {
  const id = todo.id === undefined ? "" : ` #${todo.id}`;
  const status = todo.status === "blocked" ? "" : `[${todo.status}] `;
  return `- ${status}${describeItem(todo)}${id}`;
}

/**
 * Seed 003's style: a directive to carry on without asking for permission,
 * the `[Status: X/Y completed, Z remaining]` line (Y counts every item, Z the
 * incomplete ones), and the remaining tasks.
 */
export function renderStatusDirective(list: TodoList, ctx: NudgeContext): string {
  const items = nudgeItems(list, ctx.maxItems);
  const total = list.todos.length;
  const completed = list.todos.filter((t) => t.status === "completed").length;
  const remaining = items.actionable + items.blocked;
  const close = ctx.closeInstruction.trim();
  const lines = [
    "[DIRECTIVE · todo continuation]",
    "Work is still open on your todo list. Continue with the next open task without waiting for approval, and close each task as soon as it is done.",
  ];
  if (close !== "") lines.push(close);
  lines.push(
    `[Status: ${completed}/${total} completed, ${remaining} remaining]`,
    "Remaining tasks:",
  );
  lines.push(...items.shown.map(line));
  const more = moreLine(items);
  if (more !== null) lines.push(more);
  const budget = budgetLine(ctx.episode, ctx.limits);
  if (budget !== null) lines.push(budget);
  return lines.join("\n");
}
