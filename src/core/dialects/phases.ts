import { orderedPhases } from "../todo/model.js";
import type { Todo, TodoList } from "../types.js";

/** One phase and its tasks; `name: null` holds the tasks that have no phase. */
export interface PhaseGroup {
  name: string | null;
  tasks: Todo[];
}

/**
 * The list as a phase tree, in phase/task order: tasks without a phase first
 * (only when there are any), then every phase in display order, empty ones too.
 * The groups share todo objects with `list`.
 */
export function phaseTree(list: TodoList): PhaseGroup[] {
  const loose: Todo[] = [];
  const byPhase = new Map<string, Todo[]>();
  for (const name of orderedPhases(list)) byPhase.set(name, []);
  for (const todo of list.todos) {
    if (todo.phase === undefined) loose.push(todo);
    else byPhase.get(todo.phase)?.push(todo);
  }
  const groups: PhaseGroup[] = loose.length > 0 ? [{ name: null, tasks: loose }] : [];
  for (const [name, tasks] of byPhase) groups.push({ name, tasks });
  return groups;
}

/**
 * Rebuilds a list in phase/task order: every phase a task names is declared,
 * and todos are grouped under their phase.
 */
export function fromPhaseTree(groups: readonly PhaseGroup[], nextId: number): TodoList {
  return {
    todos: groups.flatMap((g) => g.tasks),
    phases: groups.flatMap((g) => (g.name === null ? [] : [g.name])),
    nextId,
  };
}

/**
 * The single-active-task rule (seed 004), applied in phase/task order: of
 * several in_progress tasks only the first stays, the rest go back to pending;
 * with none, the first pending task is started. Blocked tasks are never
 * started by this rule. Returns a new list; the input is not touched.
 */
export function normalizeActive(list: TodoList): TodoList {
  const ordered = fromPhaseTree(phaseTree(structuredClone(list)), list.nextId);
  let active = false;
  for (const todo of ordered.todos) {
    if (todo.status !== "in_progress") continue;
    if (active) todo.status = "pending";
    active = true;
  }
  if (!active) {
    const first = ordered.todos.find((t) => t.status === "pending");
    if (first) first.status = "in_progress";
  }
  return ordered;
}
