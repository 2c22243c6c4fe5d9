import { z } from "zod";
import type { Todo, TodoList, TodoStatus } from "../types.js";
import { describeIssues, quoteInput } from "./issues.js";
import { groupByPhase } from "./phases.js";
import { MAX_TODO_TEXT, nonBlank } from "./tool.js";

export const PI_OPS = ["init", "start", "done", "drop", "rm", "append", "note"] as const;
export type PiOpName = (typeof PI_OPS)[number];

const TaskName = nonBlank("A task, by its exact content.");
const PhaseName = nonBlank("A phase, by its exact name.");
const NewTask = nonBlank("A new task's content; later ops name the task by this exact text.");

/**
 * One operation. The shape is flat (one object, optional fields) as in seed
 * 004, so every provider's tool-calling accepts it; which fields an op needs
 * is checked per op, and a bad op fails alone.
 */
export const PiOpInput = z.strictObject({
  op: z
    .enum(PI_OPS)
    .describe(
      "init {list}: replace everything. start {task}: make it the one task in progress. " +
        "done / drop / rm {task} or {phase} or neither (every task): complete, abandon, remove. " +
        "append {phase, items}: add pending tasks, creating the phase. note {task, text}: add a note.",
    ),
  list: z
    .array(
      z.strictObject({
        phase: PhaseName,
        items: z.array(NewTask).min(1).describe("Tasks of this phase, in order."),
      }),
    )
    .describe("init only: the whole new list, phase by phase.")
    .optional(),
  task: TaskName.optional(),
  phase: PhaseName.optional(),
  items: z.array(NewTask).min(1).describe("append only: tasks to add.").optional(),
  text: nonBlank("note only: the note to attach; trailing whitespace is dropped.").optional(),
});

export const PiWriteInput = z.strictObject({
  ops: z.array(PiOpInput).min(1).describe("Operations, applied in order."),
});

type PiOp = z.infer<typeof PiOpInput>;

const OP_FIELDS = new Set(["op", "list", "task", "phase", "items", "text"]);
const INIT_PHASE_FIELDS = new Set(["phase", "items"]);
const OP_NAMES: ReadonlySet<string> = new Set(PI_OPS);
const NOT_BLANK = /\S/;

function isPlainRecord(
  value: unknown,
  fields: ReadonlySet<string>,
): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(value)) if (!fields.has(key)) return false;
  return true;
}

/** The hand check of `nonBlank`: not blank, and within the schema's length limit. */
function isNonBlank(value: unknown): value is string {
  return typeof value === "string" && value.length <= MAX_TODO_TEXT && NOT_BLANK.test(value);
}

function isNonBlankList(value: unknown): value is string[] {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (let i = 0; i < value.length; i++) if (!isNonBlank(value[i])) return false;
  return true;
}

function isInitList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const entry: unknown = value[i];
    if (!isPlainRecord(entry, INIT_PHASE_FIELDS)) return false;
    if (!isNonBlank(entry.phase) || !isNonBlankList(entry.items)) return false;
  }
  return true;
}

/**
 * The op itself when it is plainly one `PiOpInput` accepts (checked by hand,
 * no schema run), else null. It only ever says yes to what the schema accepts
 * (a property test holds it to that); anything else, odd or wrong, goes
 * through the schema, which gives the exact error.
 */
export function quickPiOp(raw: unknown): PiOp | null {
  if (!isPlainRecord(raw, OP_FIELDS)) return null;
  if (typeof raw.op !== "string" || !OP_NAMES.has(raw.op)) return null;
  for (const field of ["task", "phase", "text"] as const) {
    if (raw[field] !== undefined && !isNonBlank(raw[field])) return null;
  }
  if (raw.items !== undefined && !isNonBlankList(raw.items)) return null;
  if (raw.list !== undefined && !isInitList(raw.list)) return null;
  return raw as PiOp;
}

/** A newly completed task, reported so hosts can react to completions. */
export interface CompletedTask {
  content: string;
  phase: string | null;
}

export interface PiBatchResult {
  list: TodoList;
  /** At least one op applied (fully or in part). */
  applied: boolean;
  errors: string[];
  completedTasks: CompletedTask[];
}

/**
 * The list being edited. `todos` starts as a shallow copy of the input's array,
 * so untouched items are shared with the input; an item is copied the first
 * time an op changes it (`writable`), and only copies are ever mutated.
 */
interface Work {
  todos: Todo[];
  phases: string[];
  /** Items this batch created or copied: the only ones it may mutate. */
  owned: Set<Todo>;
  /** Items an op moved to completed (checked against the input at the end). */
  completed: Set<Todo>;
}

type OpOutcome = { applied: boolean; errors: string[] };

const ok: OpOutcome = { applied: true, errors: [] };

function failed(...errors: string[]): OpOutcome {
  return { applied: false, errors };
}

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

/** Index of the first task whose content is `name`; only surrounding whitespace is ignored. */
function findTask(work: Work, name: string): number {
  const wanted = name.trim();
  for (let i = 0; i < work.todos.length; i++) {
    if ((work.todos[i] as Todo).content.trim() === wanted) return i;
  }
  return -1;
}

function findPhase(work: Work, name: string): string | undefined {
  const wanted = name.trim();
  return work.phases.find((p) => p.trim() === wanted);
}

/** The item at `index`, copied first unless this batch already owns it. */
function writable(work: Work, index: number): Todo {
  const todo = work.todos[index] as Todo;
  if (work.owned.has(todo)) return todo;
  const copy: Todo = { ...todo };
  if (todo.notes !== undefined) copy.notes = [...todo.notes];
  work.todos[index] = copy;
  work.owned.add(copy);
  return copy;
}

/** Indexes of the task / phase / everything an op targets, or the error. */
function targets(work: Work, op: PiOp, where: string): number[] | string {
  if (op.task !== undefined) {
    const index = findTask(work, op.task);
    return index >= 0 ? [index] : taskNotFound(where, work, op.task);
  }
  if (op.phase !== undefined) {
    const phase = findPhase(work, op.phase);
    if (phase === undefined) return `${where}: phase ${quote(op.phase)} not found`;
    const found: number[] = [];
    for (let i = 0; i < work.todos.length; i++) {
      if ((work.todos[i] as Todo).phase === phase) found.push(i);
    }
    return found;
  }
  return work.todos.map((_, i) => i);
}

function setStatus(work: Work, indexes: readonly number[], status: TodoStatus): void {
  for (const index of indexes) {
    const current = work.todos[index] as Todo;
    if (current.status === status && current.blockedReason === undefined) continue;
    const todo = writable(work, index);
    if (status === "completed" && todo.status !== "completed") work.completed.add(todo);
    todo.status = status;
    delete todo.blockedReason;
  }
}

function adopt(work: Work, todo: Todo): void {
  work.owned.add(todo);
  work.todos.push(todo);
}

function applyInit(work: Work, op: PiOp, where: string): OpOutcome {
  if (op.list === undefined) return missing(where, "list", "init");
  work.phases = [];
  work.todos = [];
  for (const entry of op.list) {
    const phase = entry.phase.trim();
    // Repeated phase names merge: one list has one phase per name.
    if (!work.phases.includes(phase)) work.phases.push(phase);
    for (const item of entry.items) adopt(work, { content: item.trim(), status: "pending", phase });
  }
  return ok;
}

function applyStart(work: Work, op: PiOp, where: string): OpOutcome {
  if (op.task === undefined) return missing(where, "task", "start");
  const found = targets(work, op, where);
  if (typeof found === "string") return failed(found);
  const [index] = found as [number];
  for (let i = 0; i < work.todos.length; i++) {
    if (i !== index && (work.todos[i] as Todo).status === "in_progress") {
      writable(work, i).status = "pending";
    }
  }
  setStatus(work, [index], "in_progress");
  return ok;
}

function applyClose(work: Work, op: PiOp, where: string, status: TodoStatus): OpOutcome {
  const found = targets(work, op, where);
  if (typeof found === "string") return failed(found);
  setStatus(work, found, status);
  return ok;
}

function applyRemove(work: Work, op: PiOp, where: string): OpOutcome {
  const found = targets(work, op, where);
  if (typeof found === "string") return failed(found);
  // Phases stay, emptied: removing a phase's tasks is not removing the phase.
  const doomed = new Set(found);
  work.todos = work.todos.filter((_, i) => !doomed.has(i));
  return ok;
}

function applyAppend(work: Work, op: PiOp, where: string): OpOutcome {
  if (op.phase === undefined) return missing(where, "phase", "append");
  if (op.items === undefined) return missing(where, "items", "append");
  let applied = false;
  let phase = findPhase(work, op.phase);
  if (phase === undefined) {
    phase = op.phase.trim();
    work.phases.push(phase);
    applied = true;
  }
  const errors: string[] = [];
  for (const item of op.items) {
    if (findTask(work, item) >= 0) {
      errors.push(`${where}: task ${quote(item)} already exists`);
      continue;
    }
    adopt(work, { content: item.trim(), status: "pending", phase });
    applied = true;
  }
  return { applied, errors };
}

function applyNote(work: Work, op: PiOp, where: string): OpOutcome {
  if (op.task === undefined) return missing(where, "task", "note");
  if (op.text === undefined) return missing(where, "text", "note");
  const found = targets(work, op, where);
  if (typeof found === "string") return failed(found);
  const task = writable(work, (found as [number])[0]);
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

/**
 * The tasks an op completed in this batch that were not already completed
 * (same phase and content) before it, in list order.
 */
function newlyCompleted(before: TodoList, work: Work, after: TodoList): CompletedTask[] {
  if (work.completed.size === 0) return [];
  const out: CompletedTask[] = [];
  for (const todo of after.todos) {
    if (!work.completed.has(todo) || todo.status !== "completed") continue;
    const phase = todo.phase ?? null;
    const content = todo.content.trim();
    const already = before.todos.some(
      (t) =>
        t.status === "completed" && (t.phase ?? null) === phase && t.content.trim() === content,
    );
    if (!already) out.push({ content: todo.content, phase });
  }
  return out;
}

/** Reads an op, by hand when it is plainly well-formed, else through the schema (for its errors). */
function readOp(raw: unknown, i: number): PiOp | string[] {
  const quick = quickPiOp(raw);
  if (quick !== null) return quick;
  const parsed = PiOpInput.safeParse(raw, { reportInput: true });
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({
    ...issue,
    path: ["ops", i, ...issue.path],
  }));
  return describeIssues(issues, PiWriteInput);
}

/**
 * Applies `ops` in order (seed 004). A bad op is reported and skipped while
 * the rest still apply; the single-active-task rule runs once, after the
 * batch. When no op applied at all, the list comes back untouched. Neither
 * list is mutated; the result shares the items no op changed with the input.
 */
export function applyPiOps(list: TodoList, ops: readonly unknown[]): PiBatchResult {
  const start = groupByPhase(list);
  const work: Work = {
    todos: start === list ? [...list.todos] : start.todos,
    phases: start === list ? [...list.phases] : start.phases,
    owned: new Set(),
    completed: new Set(),
  };
  const errors: string[] = [];
  let applied = false;
  ops.forEach((raw, i) => {
    const op = readOp(raw, i);
    if (Array.isArray(op)) {
      errors.push(...op);
      return;
    }
    const outcome = applyOp(work, op, `ops[${i}]`);
    errors.push(...outcome.errors);
    applied ||= outcome.applied;
  });
  if (!applied) return { list, applied, errors, completedTasks: [] };
  // Both arrays are the batch's own (or fresh from regrouping): safe to edit in place.
  const next = groupByPhase({ todos: work.todos, phases: work.phases, nextId: list.nextId });
  activateOne(next.todos, work);
  return { list: next, applied, errors, completedTasks: newlyCompleted(list, work, next) };
}

/** The single-active-task rule over the batch's own array, copying what it changes. */
function activateOne(todos: Todo[], work: Work): void {
  const view: Work = { ...work, todos };
  let active = false;
  for (let i = 0; i < todos.length; i++) {
    if ((todos[i] as Todo).status !== "in_progress") continue;
    if (active) writable(view, i).status = "pending";
    active = true;
  }
  if (active) return;
  const first = todos.findIndex((t) => t.status === "pending");
  if (first >= 0) writable(view, first).status = "in_progress";
}
