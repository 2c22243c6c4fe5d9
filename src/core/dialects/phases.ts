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
 * The list in phase/task order (what `fromPhaseTree(phaseTree(list))` gives).
 * A list already in that order comes back as the very same object, after one
 * pass and no copy; otherwise a new list sharing the todo objects.
 */
export function groupByPhase(list: TodoList): TodoList {
  const phases = orderedPhases(list);
  if (isGrouped(list, phases)) return list;
  return fromPhaseTree(phaseTree(list), list.nextId);
}

/** Loose tasks first, then each phase's tasks in `phases` order, and every phase declared. */
function isGrouped(list: TodoList, phases: readonly string[]): boolean {
  if (phases.length !== list.phases.length) return false;
  const rank = new Map<string, number>();
  for (let i = 0; i < phases.length; i++) rank.set(phases[i] as string, i);
  if (rank.size !== phases.length) return false;
  let current = -1;
  for (const todo of list.todos) {
    const at = todo.phase === undefined ? -1 : (rank.get(todo.phase) as number);
    if (at < current) return false;
    current = at;
  }
  return true;
}

/**
 * The single-active-task rule (seed 004), applied in phase/task order: of
 * several in_progress tasks only the first stays, the rest go back to pending;
 * with none, the first pending task is started. Blocked tasks are never
 * started by this rule. Returns a new list sharing the unchanged todo objects;
 * the input is not touched.
 */
export function normalizeActive(list: TodoList): TodoList {
  const grouped = groupByPhase(list);
  const todos = grouped === list ? [...list.todos] : grouped.todos;
  const restatus = (index: number, status: Todo["status"]) => {
    todos[index] = { ...(todos[index] as Todo), status };
  };
  let active = false;
  for (let i = 0; i < todos.length; i++) {
    if ((todos[i] as Todo).status !== "in_progress") continue;
    if (active) restatus(i, "pending");
    active = true;
  }
  if (!active) {
    const first = todos.findIndex((t) => t.status === "pending");
    if (first >= 0) restatus(first, "in_progress");
  }
  return { todos, phases: [...grouped.phases], nextId: list.nextId };
}
