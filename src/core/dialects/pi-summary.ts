import { canonicalText, isIncomplete } from "../todo/model.js";
import type { Todo, TodoList } from "../types.js";
import { checkboxLine, countStatuses, describeCounts, plural } from "./display.js";
import { type PhaseGroup, phaseTree } from "./phases.js";

function groupName(group: PhaseGroup): string {
  return group.name === null ? "(no phase)" : canonicalText(group.name) || '""';
}

/** The phase the model is working in: the active task's, else the first with open work. */
function currentGroup(groups: readonly PhaseGroup[]): PhaseGroup | undefined {
  return (
    groups.find((g) => g.tasks.some((t) => t.status === "in_progress")) ??
    groups.find((g) => g.tasks.some((t) => t.status === "pending")) ??
    groups.find((g) => g.tasks.some((t) => isIncomplete(t.status)))
  );
}

function taskLines(todo: Todo): string[] {
  const notes = todo.notes ?? [];
  if (todo.status === "in_progress") {
    // Only the active task's notes are spelled out; they are what the next step needs.
    return [`  ${checkboxLine(todo)}`, ...notes.map((n) => `      > ${canonicalText(n)}`)];
  }
  const count = notes.length > 0 ? ` (${plural(notes.length, "note")})` : "";
  return [`  ${checkboxLine(todo)}${count}`];
}

function describeState(list: TodoList, hadErrors: boolean): string {
  if (list.todos.length === 0) return hadErrors ? "The todo list is empty." : "Todo list cleared.";
  const counts = countStatuses(list.todos);
  const remaining = counts.pending + counts.in_progress + counts.blocked;
  const total = list.todos.length;
  const lines: string[] = [];
  if (remaining === 0) {
    lines.push(`All ${plural(total, "task")} are closed (${describeCounts(counts)}).`);
  } else {
    const open = countStatuses(list.todos.filter((t) => isIncomplete(t.status)));
    lines.push(`Remaining: ${remaining} of ${plural(total, "task")} (${describeCounts(open)}).`);
  }
  const groups = phaseTree(list);
  const current = currentGroup(groups);
  if (current) {
    const done = current.tasks.filter((t) => t.status === "completed").length;
    lines.push(
      `Current phase: ${groupName(current)} (${done} of ${plural(current.tasks.length, "task")} completed).`,
    );
  }
  lines.push("");
  for (const group of groups) {
    lines.push(group.tasks.length === 0 ? `${groupName(group)} (empty)` : groupName(group));
    for (const todo of group.tasks) lines.push(...taskLines(todo));
  }
  return lines.join("\n");
}

/**
 * The text of a pi-dialect result: errors first (when any), then either
 * "Todo list cleared." or the remaining count, the current phase's progress
 * and the phase tree with the active task's notes.
 */
export function formatPiSummary(list: TodoList, errors: readonly string[] = []): string {
  const state = describeState(list, errors.length > 0);
  if (errors.length === 0) return state;
  return [`Errors:`, ...errors.map((e) => `- ${e}`), "", state].join("\n");
}
