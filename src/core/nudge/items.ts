import { canonicalText, orderedPhases } from "../todo/model.js";
import type { Todo, TodoList } from "../types.js";

/** Items a nudge lists before it says "and K more": enough to act on, short enough to stay cheap. */
export const DEFAULT_NUDGE_ITEMS = 10;

const MAX_TEXT = 160;
const MAX_REASON = 120;

/** One line of model-written text, whitespace collapsed and cut to a bounded length. */
export function oneLine(text: string, max = MAX_TEXT): string {
  const line = canonicalText(text);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export interface NudgeItems {
  /** In progress first, then pending, then blocked; list (and phase) order within each. */
  shown: Todo[];
  /** Items left out by the cap. */
  hiddenActionable: number;
  hiddenBlocked: number;
  actionable: number;
  blocked: number;
}

/**
 * The open items a nudge shows: actionable ones first (they are what the agent
 * should do next), blocked ones after for context, at most `cap` in all.
 * Phases keep the list's phase order; items without a phase keep list order.
 */
export function nudgeItems(list: TodoList, cap = DEFAULT_NUDGE_ITEMS): NudgeItems {
  const phaseRank = new Map(orderedPhases(list).map((phase, i) => [phase, i] as const));
  const rank = (todo: Todo) => (todo.phase === undefined ? -1 : (phaseRank.get(todo.phase) ?? -1));
  const byPhase = (a: Todo, b: Todo) => rank(a) - rank(b);
  const inProgress = list.todos.filter((t) => t.status === "in_progress").sort(byPhase);
  const pending = list.todos.filter((t) => t.status === "pending").sort(byPhase);
  const blocked = list.todos.filter((t) => t.status === "blocked").sort(byPhase);
  const actionable = [...inProgress, ...pending];
  const limit = Math.max(0, Math.floor(cap));
  const shownActionable = actionable.slice(0, limit);
  const shownBlocked = blocked.slice(0, Math.max(0, limit - shownActionable.length));
  return {
    shown: [...shownActionable, ...shownBlocked],
    hiddenActionable: actionable.length - shownActionable.length,
    hiddenBlocked: blocked.length - shownBlocked.length,
    actionable: actionable.length,
    blocked: blocked.length,
  };
}

/** "…and 4 more (3 actionable, 1 blocked)", or null when nothing was left out. */
export function moreLine(items: NudgeItems): string | null {
  const hidden = items.hiddenActionable + items.hiddenBlocked;
  if (hidden === 0) return null;
  const parts: string[] = [];
  if (items.hiddenActionable > 0) parts.push(`${items.hiddenActionable} actionable`);
  if (items.hiddenBlocked > 0) parts.push(`${items.hiddenBlocked} blocked`);
  return `…and ${hidden} more (${parts.join(", ")}).`;
}

/** The item's text with its phase and, when blocked, its reason. */
export function describeItem(todo: Todo): string {
  let text = oneLine(todo.content);
  if (todo.phase !== undefined) text += ` (phase: ${oneLine(todo.phase, 60)})`;
  if (todo.status === "blocked") {
    text += ` (blocked: ${oneLine(todo.blockedReason ?? "no reason given", MAX_REASON)})`;
  }
  return text;
}
