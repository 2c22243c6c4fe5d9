import type { Todo, TodoStatus } from "../../core/types.js";

/**
 * Gemini CLI's two todo tools, mapped onto the project's list. `write_todos`
 * (gemini-2.x models) sends the whole list each call; the task tracker
 * (`experimental.taskTracker`) changes one task at a time, but every
 * successful tracker call answers with the whole tree in
 * `tool_response.returnDisplay.todos`, in write_todos' shape. So both are read
 * the same way: the full list after the call. Pure; bad input throws an error
 * naming the field, so the caller keeps the stored list as it was.
 */

export const WRITE_TODOS = "write_todos";

/** Tracker tools whose answer carries the whole tree. */
export const TRACKER_TOOLS: readonly string[] = [
  "tracker_create_task",
  "tracker_update_task",
  "tracker_add_dependency",
  "tracker_list_tasks",
];

/** Tools whose AfterTool may carry a new list. */
export const LIST_TOOLS: readonly string[] = [WRITE_TODOS, ...TRACKER_TOOLS];

/** The tool that runs a subagent in the parent's session (its tool calls fire the parent's hooks). */
export const CHILD_AGENT_TOOL = "invoke_agent";

/** Which tool family a list came from: it decides how the nudge says to close an item. */
export type GeminiToolFamily = "write-todos" | "tracker";

export class GeminiTodoInputError extends Error {
  override name = "GeminiTodoInputError";
}

const STATUSES: ReadonlySet<string> = new Set<TodoStatus>([
  "pending",
  "in_progress",
  "completed",
  "cancelled",
  "blocked",
]);

/** Tracker entries read `  task: Title (a1b2c3)`: indentation shows depth, the id closes the line. */
const TRACKER_ID = /\s\(([0-9a-f]{6})\)$/;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40));
  return typeof value;
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function todoItem(value: unknown, where: string, family: GeminiToolFamily): Todo {
  const item = asRecord(value);
  if (item === null)
    throw new GeminiTodoInputError(`${where} must be an object, got ${describe(value)}`);
  const description = item.description;
  if (typeof description !== "string" || description.trim() === "") {
    throw new GeminiTodoInputError(
      `${where}.description must be a non-empty string, got ${describe(description)}`,
    );
  }
  const status = item.status;
  if (typeof status !== "string" || !STATUSES.has(status)) {
    throw new GeminiTodoInputError(
      `${where}.status must be one of ${[...STATUSES].join(", ")}, got ${describe(status)}`,
    );
  }
  const content = description.trim();
  const id = family === "tracker" ? TRACKER_ID.exec(content)?.[1] : undefined;
  const todo: Todo = { content, status: status as TodoStatus };
  if (id !== undefined) todo.id = id;
  if (status === "blocked") todo.blockedReason = "marked blocked in Gemini CLI";
  return todo;
}

export function familyOf(toolName: string): GeminiToolFamily | null {
  if (toolName === WRITE_TODOS) return "write-todos";
  return TRACKER_TOOLS.includes(toolName) ? "tracker" : null;
}

/**
 * The list after a successful list-tool call, or null when the call changed
 * nothing we can read (another tool, a failed call, an answer without a list).
 */
export function todosAfterTool(
  toolName: string,
  toolInput: unknown,
  toolResponse: unknown,
): Todo[] | null {
  const family = familyOf(toolName);
  if (family === null) return null;
  const response = asRecord(toolResponse);
  // A failed call leaves the host's list as it was.
  if (response !== null && response.error !== undefined && response.error !== null) return null;
  const display = asRecord(response?.returnDisplay);
  if (display !== null && Array.isArray(display.todos)) {
    return display.todos.map((t, i) =>
      todoItem(t, `tool_response.returnDisplay.todos[${i}]`, family),
    );
  }
  if (family === "tracker") return null;
  const input = asRecord(toolInput);
  if (input === null || !Array.isArray(input.todos)) {
    throw new GeminiTodoInputError(
      `tool_input.todos must be an array, got ${describe(input?.todos)}`,
    );
  }
  return input.todos.map((t, i) => todoItem(t, `tool_input.todos[${i}]`, family));
}

/** How the nudge tells the model to close an item, per tool family. */
export function closeInstructionFor(family: GeminiToolFamily | null): string {
  if (family === "tracker") {
    return "Close each finished task with tracker_update_task (status closed); mark it blocked with a reason if it cannot go on.";
  }
  return "Mark each finished item completed with write_todos (send the whole list), or cancelled if it is no longer needed.";
}

/** The family of a stored list: tracker lists carry the tracker's 6-hex ids. */
export function familyOfList(todos: readonly Todo[]): GeminiToolFamily | null {
  if (todos.length === 0) return null;
  return todos.every((t) => t.id !== undefined && /^[0-9a-f]{6}$/.test(t.id))
    ? "tracker"
    : "write-todos";
}
