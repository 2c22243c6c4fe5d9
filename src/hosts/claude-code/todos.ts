import type { Todo, TodoList } from "../../core/types.js";

/**
 * Claude Code's two generations of todo tools, mapped onto the project's list.
 * TodoWrite sends the whole list each call and has no ids; the Task tools
 * (TaskCreate / TaskUpdate) change one task at a time and key it by id.
 * Everything here is pure; bad input throws an error naming the field, so the
 * caller keeps the stored list as it was.
 */

export const TODO_WRITE = "TodoWrite";
export const TASK_CREATE = "TaskCreate";
export const TASK_UPDATE = "TaskUpdate";

/** Tools whose PostToolUse changes the list. */
export const LIST_TOOLS: readonly string[] = [TODO_WRITE, TASK_CREATE, TASK_UPDATE];

/** Which tool family a list came from: it decides how the nudge says to close an item. */
export type ToolFamily = "todo-write" | "tasks";

export class TodoInputError extends Error {
  override name = "TodoInputError";
}

const HOST_STATUSES = new Set(["pending", "in_progress", "completed"]);

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40));
  return typeof value;
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TodoInputError(`${where} must be an object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

function text(value: unknown, where: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new TodoInputError(`${where} must be a non-empty string, got ${describe(value)}`);
  }
  return value;
}

function status(value: unknown, where: string): Todo["status"] {
  if (typeof value !== "string" || !HOST_STATUSES.has(value)) {
    throw new TodoInputError(
      `${where} must be one of pending, in_progress, completed, got ${describe(value)}`,
    );
  }
  return value as Todo["status"];
}

/** Task ids arrive as strings ("1"); a number is accepted and written the same way. */
function taskId(value: unknown, where: string): string {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return String(value);
  return text(value, where);
}

function todoWriteItem(raw: unknown, where: string): Todo {
  const item = record(raw, where);
  const todo: Todo = {
    content: text(item.content, `${where}.content`),
    status: status(item.status, `${where}.status`),
  };
  if (typeof item.activeForm === "string" && item.activeForm.trim() !== "") {
    todo.activeForm = item.activeForm;
  }
  return todo;
}

/**
 * The list a TodoWrite call left. Claude Code's own result (`newTodos`) wins
 * over the model's input when present, since it is what the host stored.
 */
export function todosFromTodoWrite(toolInput: unknown, toolResponse: unknown): Todo[] {
  const response =
    typeof toolResponse === "object" && toolResponse !== null
      ? (toolResponse as Record<string, unknown>)
      : {};
  if (Array.isArray(response.newTodos)) {
    return response.newTodos.map((item, i) => todoWriteItem(item, `tool_response.newTodos[${i}]`));
  }
  const input = record(toolInput, "tool_input");
  if (!Array.isArray(input.todos)) {
    throw new TodoInputError(`tool_input.todos must be an array, got ${describe(input.todos)}`);
  }
  return input.todos.map((item, i) => todoWriteItem(item, `tool_input.todos[${i}]`));
}

/** One Task tool call, validated: what it does to the list. */
export type TaskChange =
  | { kind: "create"; todo: Todo }
  | { kind: "update"; id: string; patch: Partial<Pick<Todo, "content" | "status" | "activeForm">> }
  | { kind: "delete"; id: string }
  | { kind: "none" };

function createChange(toolInput: unknown, toolResponse: unknown): TaskChange {
  const input = record(toolInput, "tool_input");
  const response = record(toolResponse, "tool_response");
  const task = record(response.task, "tool_response.task");
  const id = taskId(task.id, "tool_response.task.id");
  const content =
    task.subject !== undefined
      ? text(task.subject, "tool_response.task.subject")
      : text(input.subject, "tool_input.subject");
  const todo: Todo = { id, content, status: "pending" };
  if (typeof input.activeForm === "string" && input.activeForm.trim() !== "") {
    todo.activeForm = input.activeForm;
  }
  return { kind: "create", todo };
}

function updateChange(toolInput: unknown, toolResponse: unknown): TaskChange {
  const input = record(toolInput, "tool_input");
  const id = taskId(input.taskId, "tool_input.taskId");
  const response =
    typeof toolResponse === "object" && toolResponse !== null
      ? (toolResponse as Record<string, unknown>)
      : {};
  // The host refused the update: the task is as it was.
  if (response.success === false) return { kind: "none" };
  if (input.status === "deleted") return { kind: "delete", id };
  const patch: Partial<Pick<Todo, "content" | "status" | "activeForm">> = {};
  if (input.status !== undefined) patch.status = status(input.status, "tool_input.status");
  if (input.subject !== undefined) patch.content = text(input.subject, "tool_input.subject");
  if (typeof input.activeForm === "string" && input.activeForm.trim() !== "") {
    patch.activeForm = input.activeForm;
  }
  return { kind: "update", id, patch };
}

/**
 * Validates a TaskCreate (the new id comes from the host's result) or
 * TaskUpdate (`deleted` removes the task) call. Throws a TodoInputError naming
 * the field; nothing is applied until this succeeds.
 */
export function parseTaskChange(
  toolName: string,
  toolInput: unknown,
  toolResponse: unknown,
): TaskChange {
  if (toolName === TASK_CREATE) return createChange(toolInput, toolResponse);
  if (toolName === TASK_UPDATE) return updateChange(toolInput, toolResponse);
  throw new TodoInputError(
    `tool_name must be ${TASK_CREATE} or ${TASK_UPDATE}, got ${describe(toolName)}`,
  );
}

/**
 * Applies a validated change; never throws. A created id already on the list
 * is replaced, not duplicated; an update or delete for an id the list does not
 * hold changes nothing (its creation was never seen, so its text is unknown).
 */
export function applyTaskChange(list: TodoList, change: TaskChange): TodoList {
  switch (change.kind) {
    case "none":
      return list;
    case "create":
      return {
        ...list,
        todos: [...list.todos.filter((t) => t.id !== change.todo.id), change.todo],
      };
    case "delete":
      return list.todos.some((t) => t.id === change.id)
        ? { ...list, todos: list.todos.filter((t) => t.id !== change.id) }
        : list;
    case "update": {
      const index = list.todos.findIndex((t) => t.id === change.id);
      if (index < 0) return list;
      const todos = [...list.todos];
      todos[index] = { ...(todos[index] as Todo), ...change.patch };
      return { ...list, todos };
    }
  }
}

/** What one task file says: a task, a task marked deleted, or nothing trustworthy (null). */
export type TaskFileEntry = Todo | "deleted" | null;

/**
 * One task file from Claude Code's tasks folder (`<id>.json`): the task,
 * `"deleted"`, or null when it cannot be trusted (hand-edited or half-written).
 */
export function todoFromTaskFile(raw: unknown): TaskFileEntry {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const file = raw as Record<string, unknown>;
  const id =
    typeof file.id === "string" && file.id !== ""
      ? file.id
      : typeof file.id === "number" && Number.isSafeInteger(file.id)
        ? String(file.id)
        : null;
  if (id === null) return null;
  if (file.status === "deleted") return "deleted";
  if (typeof file.subject !== "string" || file.subject.trim() === "") return null;
  if (typeof file.status !== "string" || !HOST_STATUSES.has(file.status)) return null;
  const todo: Todo = { id, content: file.subject, status: file.status as Todo["status"] };
  if (typeof file.activeForm === "string" && file.activeForm.trim() !== "") {
    todo.activeForm = file.activeForm;
  }
  return todo;
}

/**
 * Brings the tasks this session created up to date with the tasks folder,
 * which Claude Code writes before the tool call returns. `files` maps each
 * task file's id (its name without `.json`) to what the file says (see
 * `todoFromTaskFile`). The folder is the authority on a known task's
 * text and status, and a known task whose file is gone was deleted; an
 * unreadable file keeps what the list had. Tasks the list never saw created
 * are left out: they belong to a subagent or a teammate sharing the folder,
 * not to this session.
 */
export function reconcileWithTaskFiles(
  list: TodoList,
  files: ReadonlyMap<string, TaskFileEntry>,
): TodoList {
  const todos: Todo[] = [];
  let changed = false;
  for (const todo of list.todos) {
    if (todo.id === undefined || !files.has(todo.id)) {
      if (todo.id !== undefined) changed = true;
      else todos.push(todo);
      continue;
    }
    const file = files.get(todo.id);
    if (file === "deleted") {
      changed = true;
      continue;
    }
    if (file === null || file === undefined) {
      todos.push(todo);
      continue;
    }
    const next: Todo = { ...todo, content: file.content, status: file.status };
    if (file.activeForm !== undefined) next.activeForm = file.activeForm;
    if (next.content !== todo.content || next.status !== todo.status) changed = true;
    todos.push(next);
  }
  return changed ? { ...list, todos } : list;
}

/** The tool family a stored list came from: ids mean the Task tools. */
export function toolFamilyOf(list: TodoList): ToolFamily {
  return list.todos.some((t) => t.id !== undefined) ? "tasks" : "todo-write";
}

/** The "how to close an item" line of the nudge, in the session's own tools. */
export function closeInstructionFor(family: ToolFamily): string {
  return family === "tasks"
    ? 'When an item is done and verified, mark it with TaskUpdate (its taskId, status "completed"); delete an item that no longer applies with status "deleted".'
    : 'When an item is done and verified, call TodoWrite with the whole list and that item\'s status set to "completed".';
}
