import type { Todo, TodoList } from "../types.js";
import { budgetLine } from "./budget-line.js";
import { describeItem, moreLine, nudgeItems } from "./items.js";
import type { NudgeContext } from "./types.js";

function line(todo: Todo): string {
  const marker = todo.id === undefined ? "-" : `[${todo.id}]`;
  const active = todo.status === "in_progress" ? " (in progress)" : "";
  return `  ${marker} ${describeItem(todo)}${active}`;
}

/**
 * Seed 002's style: a short user message carrying the live list inline, with
 * ids (to close items by) and blocked reasons, actionable items first. The
 * agent can act at once without a round trip to read its list, and the system
 * prompt never changes, so it stays cacheable.
 */
export function renderInlineList(list: TodoList, ctx: NudgeContext): string {
  const items = nudgeItems(list, ctx.maxItems);
  const close = ctx.closeInstruction.trim();
  const lines = [
    `Open todos remain, so keep going with the next one.${close === "" ? "" : ` ${close}`}`,
    ...items.shown.map(line),
  ];
  const more = moreLine(items);
  if (more !== null) lines.push(`  ${more}`);
  const budget = budgetLine(ctx.episode, ctx.limits);
  if (budget !== null) lines.push(budget);
  return lines.join("\n");
}
