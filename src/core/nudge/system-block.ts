import type { TodoList } from "../types.js";
import { budgetLine } from "./budget-line.js";
import { describeItem, nudgeItems } from "./items.js";
import type { NudgeContext } from "./types.js";

/**
 * Seed 000's style: a delimited notice that says plainly it comes from the
 * runtime and not from a person, names the next item, asks for skeptical
 * verification before anything is called done, and says how to close items.
 * It does not list the todos; the agent reads its list with its own tool.
 */
export function renderSystemBlock(list: TodoList, ctx: NudgeContext): string {
  const items = nudgeItems(list, 1);
  const next = items.shown[0];
  const blocked = items.blocked > 0 ? ` (plus ${items.blocked} blocked)` : "";
  const lines = [
    "[SYSTEM NOTICE · automatic todo continuation · no person wrote this message]",
    `Your todo list still has ${items.actionable} open item${items.actionable === 1 ? "" : "s"}${blocked}.`,
  ];
  if (next !== undefined) lines.push(`Take up the next one now: ${describeItem(next)}`);
  lines.push(
    "- Treat your own finished work with suspicion: run it, test it or reread it, and only mark an item completed once you have seen it work.",
  );
  if (ctx.closeInstruction.trim() !== "") lines.push(`- ${ctx.closeInstruction.trim()}`);
  lines.push("- If an item cannot go on, record why in the list instead of stopping silently.");
  const budget = budgetLine(ctx.episode, ctx.limits);
  if (budget !== null) lines.push(budget);
  lines.push("[END OF SYSTEM NOTICE]");
  return lines.join("\n");
}
