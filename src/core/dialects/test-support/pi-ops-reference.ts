/**
 * The pi dialect's batch as it was first written: deep copies everywhere and
 * the schema parsing every op. Kept only as the oracle the faster
 * `applyPiOps` is checked against; nothing outside tests imports it.
 */
import type { z } from "zod";
import type { Todo, TodoList, TodoStatus } from "../../types.js";
import { describeIssues, quoteInput } from "../issues.js";
import { fromPhaseTree, phaseTree } from "../phases.js";
import {
  type CompletedTask,
  type PiBatchResult,
  PiOpInput,
  type PiOpName,
  PiWriteInput,
} from "../pi-ops.js";

type PiOp = z.infer<typeof PiOpInput>;

interface Work {
  todos: Todo[];
  phases: string[];
}

type OpOutcome = { applied: boolean; errors: string[] };

const ok: OpOutcome = { applied: true, errors: [] };

function failed(...errors: string[]): OpOutcome {
  return { applied: false, errors };
}

/** Exact text match; only surrounding whitespace is ignored. */
function same(a: string, b: string): boolean {
  return a.trim() === b.trim();
}

/** Messages quote input as the dialects do now (a short prefix), so only behaviour is compared. */
function quote(text: string): string {
  return quoteInput(text.trim());
}

function taskNotFound(where: string, work: Work, task: string): string {
  const hint =
    work.todos.length === 0
      ? " (the list is empty; create tasks with init or append)"
      : " (tasks are matched by their exact content)";
  return `${where}: task ${quote(task)} not found${hint}`;
}

function missing(where: string, field: string, op: PiOpName): OpOutcome {
  return failed(`${where}.${field} is required for "${op}"`);
}

/** Resolves the task / phase / everything an op targets. */
function targets(work: Work, op: PiOp, where: string): Todo[] | string {
  if (op.task !== undefined) {
    const task = work.todos.find((t) => same(t.content, op.task as string));
    return task ? [task] : taskNotFound(where, work, op.task);
  }
  if (op.phase !== undefined) {
    const phase = work.phases.find((p) => same(p, op.phase as string));
    if (phase === undefined) return `${where}: phase ${quote(op.phase)} not found`;
    return work.todos.filter((t) => t.phase === phase);
  }
  return work.todos;
}

function setStatus(todos: readonly Todo[], status: TodoStatus): void {
  for (const todo of todos) {
    todo.status = status;
    delete todo.blockedReason;
  }
}

function applyInit(work: Work, op: PiOp, where: string): OpOutcome {
  if (op.list === undefined) return missing(where, "list", "init");
  work.phases = [];
  work.todos = [];
  for (const entry of op.list) {
    const phase = entry.phase.trim();
    // Repeated phase names merge: one list has one phase per name.
    if (!work.phases.includes(phase)) work.phases.push(phase);
    for (const item of entry.items)
      work.todos.push({ content: item.trim(), status: "pending", phase });
  }
  return ok;
}

function applyStart(work: Work, op: PiOp, where: string): OpOutcome {
  if (op.task === undefined) return missing(where, "task", "start");
  const found = targets(work, op, where);
  if (typeof found === "string") return failed(found);
  const [task] = found as [Todo];
  for (const todo of work.todos)
    if (todo !== task && todo.status === "in_progress") todo.status = "pending";
  setStatus([task], "in_progress");
  return ok;
}

function applyClose(work: Work, op: PiOp, where: string, status: TodoStatus): OpOutcome {
  const found = targets(work, op, where);
  if (typeof found === "string") return failed(found);
  setStatus(found, status);
  return ok;
}

function applyRemove(work: Work, op: PiOp, where: string): OpOutcome {
  const found = targets(work, op, where);
  if (typeof found === "string") return failed(found);
  // Phases stay, emptied: removing a phase's tasks is not removing the phase.
  const doomed = new Set(found);
  work.todos = work.todos.filter((t) => !doomed.has(t));
  return ok;
}

function applyAppend(work: Work, op: PiOp, where: string): OpOutcome {
  if (op.phase === undefined) return missing(where, "phase", "append");
  if (op.items === undefined) return missing(where, "items", "append");
  let applied = false;
  let phase = work.phases.find((p) => same(p, op.phase as string));
  if (phase === undefined) {
    phase = op.phase.trim();
    work.phases.push(phase);
    applied = true;
  }
  const errors: string[] = [];
  for (const item of op.items) {
    if (work.todos.some((t) => same(t.content, item))) {
      errors.push(`${where}: task ${quote(item)} already exists`);
      continue;
    }
    work.todos.push({ content: item.trim(), status: "pending", phase });
    applied = true;
  }
  return { applied, errors };
}

function applyNote(work: Work, op: PiOp, where: string): OpOutcome {
  if (op.task === undefined) return missing(where, "task", "note");
  if (op.text === undefined) return missing(where, "text", "note");
  const found = targets(work, op, where);
  if (typeof found === "string") return failed(found);
  const [task] = found as [Todo];
  task.notes = [...(task.notes ?? []), op.text.trimEnd()];
  return ok;
}

function applyOp(work: Work, op: PiOp, where: string): OpOutcome {
  switch (op.op) {
    case "init":
      return applyInit(work, op, where);
    case "start":
      return applyStart(work, op, where);
    case "done":
      return applyClose(work, op, where, "completed");
    case "drop":
      return applyClose(work, op, where, "cancelled");
    case "rm":
      return applyRemove(work, op, where);
    case "append":
      return applyAppend(work, op, where);
    case "note":
      return applyNote(work, op, where);
  }
}

function completionKey(todo: Todo): string {
  return JSON.stringify([todo.phase ?? null, todo.content.trim()]);
}

function newlyCompleted(before: TodoList, after: TodoList): CompletedTask[] {
  const done = new Set(before.todos.filter((t) => t.status === "completed").map(completionKey));
  return after.todos
    .filter((t) => t.status === "completed" && !done.has(completionKey(t)))
    .map((t) => ({ content: t.content, phase: t.phase ?? null }));
}

/**
 * Applies `ops` in order (seed 004). A bad op is reported and skipped while
 * the rest still apply; the single-active-task rule runs once, after the
 * batch. When no op applied at all, the list comes back untouched.
 */
export function applyPiOpsReference(list: TodoList, ops: readonly unknown[]): PiBatchResult {
  const start = fromPhaseTree(phaseTree(structuredClone(list)), list.nextId);
  const work: Work = { todos: start.todos, phases: start.phases };
  const errors: string[] = [];
  let applied = false;
  ops.forEach((raw, i) => {
    const where = `ops[${i}]`;
    const parsed = PiOpInput.safeParse(raw, { reportInput: true });
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({
        ...issue,
        path: ["ops", i, ...issue.path],
      }));
      errors.push(...describeIssues(issues, PiWriteInput));
      return;
    }
    const outcome = applyOp(work, parsed.data, where);
    errors.push(...outcome.errors);
    applied ||= outcome.applied;
  });
  if (!applied) return { list, applied, errors, completedTasks: [] };
  const grouped = fromPhaseTree(phaseTree({ ...work, nextId: list.nextId }), list.nextId);
  const next = normalizeActiveReference(grouped);
  return { list: next, applied, errors, completedTasks: newlyCompleted(list, next) };
}

export function normalizeActiveReference(list: TodoList): TodoList {
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
