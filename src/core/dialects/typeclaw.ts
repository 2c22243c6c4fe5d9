import { z } from "zod";
import { emptyList } from "../todo/model.js";
import type { Todo, TodoList, TodoTool } from "../types.js";
import { checkboxLine, countStatuses, describeCounts, plural } from "./display.js";
import { minNextId } from "./ids.js";
import { parseInput, quoteInput } from "./issues.js";
import {
  cloneList,
  defineTool,
  type Handled,
  MAX_TODO_TEXT,
  nonBlank,
  refuse,
  succeed,
} from "./tool.js";

const TodoInput = z.strictObject({
  content: nonBlank("What to do, in the imperative."),
  status: z
    .enum(["pending", "in_progress", "completed", "cancelled", "blocked"])
    .describe("Keep at most one item in_progress; blocked needs blockedReason."),
  priority: z.enum(["high", "medium", "low"]).optional(),
  id: nonBlank("Optional stable identifier; unique within the list.").optional(),
  blockedReason: z
    .string()
    .max(MAX_TODO_TEXT)
    .describe("Why the item cannot proceed; required when status is blocked.")
    .optional(),
  activeForm: z
    .string()
    .max(MAX_TODO_TEXT)
    .describe('Present-tense label shown while the item runs ("Running tests").')
    .optional(),
});

const WriteInput = z.strictObject({
  todos: z.array(TodoInput).describe("The whole list: it replaces the stored one."),
});

const NoInput = z.strictObject({});

type TodoInput = z.infer<typeof TodoInput>;

/** Checks the rules a per-field schema cannot see: blocked reasons and unique ids. */
function crossCheck(todos: readonly TodoInput[]): string | null {
  const problems: string[] = [];
  const firstById = new Map<string, number>();
  todos.forEach((todo, i) => {
    if (todo.status === "blocked" && (todo.blockedReason ?? "").trim() === "") {
      problems.push(`todos[${i}].blockedReason is required when status is "blocked"`);
    }
    if (todo.id !== undefined) {
      const id = todo.id.trim();
      const first = firstById.get(id);
      if (first === undefined) firstById.set(id, i);
      else problems.push(`todos[${i}].id ${quoteInput(id)} is already used by todos[${first}]`);
    }
  });
  return problems.length === 0 ? null : `todo_write: ${problems.slice(0, 5).join("; ")}`;
}

function toTodo(input: TodoInput): Todo {
  const todo: Todo = { content: input.content.trim(), status: input.status };
  if (input.id !== undefined) todo.id = input.id.trim();
  if (input.priority !== undefined) todo.priority = input.priority;
  // A reason only means something while the item is blocked; a stale one is dropped.
  if (input.status === "blocked") todo.blockedReason = (input.blockedReason ?? "").trim();
  if (input.activeForm !== undefined && input.activeForm.trim() !== "") {
    todo.activeForm = input.activeForm.trim();
  }
  return todo;
}

function describeItem(todo: Todo): string {
  const extras: string[] = [];
  if (todo.id !== undefined) extras.push(`id ${todo.id}`);
  if (todo.priority !== undefined) extras.push(`${todo.priority} priority`);
  return `${checkboxLine(todo)}${extras.length > 0 ? ` (${extras.join(", ")})` : ""}`;
}

/** The list as the model reads it back: a count line, then one checkbox line per item. */
export function describeFlatList(list: TodoList, heading: string): string {
  if (list.todos.length === 0) return `${heading}: the list is empty.`;
  const counts = countStatuses(list.todos);
  const lines = [
    `${heading}: ${plural(list.todos.length, "item")} (${describeCounts(counts)}).`,
    ...list.todos.map(describeItem),
  ];
  if (counts.pending + counts.in_progress + counts.blocked === 0) {
    lines.push("Every item is closed; call todo_clear once the work is verified.");
  }
  return lines.join("\n");
}

function details(list: TodoList): Record<string, unknown> {
  return { todos: cloneList(list).todos, counts: countStatuses(list.todos) };
}

function write(list: TodoList, input: unknown): Handled {
  const parsed = parseInput("todo_write", WriteInput, input);
  if (!parsed.ok) return refuse(list, parsed.message);
  const problem = crossCheck(parsed.value.todos);
  if (problem) return refuse(list, problem);
  const todos = parsed.value.todos.map(toTodo);
  // Full replace: phases go too, but the id counter never moves back.
  const next: TodoList = {
    todos,
    phases: [],
    nextId: Math.max(list.nextId, minNextId(todos)),
  };
  return succeed(next, describeFlatList(next, "Todo list updated"), details(next));
}

function read(list: TodoList, input: unknown): Handled {
  const parsed = parseInput("todo_read", NoInput, input, { emptyIsObject: true });
  if (!parsed.ok) return refuse(list, parsed.message);
  return succeed(list, describeFlatList(list, "Todo list"), details(list));
}

function clear(list: TodoList, input: unknown): Handled {
  const parsed = parseInput("todo_clear", NoInput, input, { emptyIsObject: true });
  if (!parsed.ok) return refuse(list, parsed.message);
  const next: TodoList = { ...emptyList(), nextId: list.nextId };
  return succeed(next, "Todo list cleared.", { todos: [], cleared: list.todos.length });
}

/** TypeClaw's tools (seed 000): the model re-sends the whole list on every write. */
export function typeclawTools(): TodoTool[] {
  return [
    defineTool({
      name: "todo_write",
      description:
        "Replace the whole todo list (not a merge): send every item each time, with its status. " +
        "Keep one item in_progress while you work on it, mark items completed only when the " +
        "work is verified, and give blocked items a blockedReason.",
      schema: WriteInput,
      readOnly: false,
      handle: write,
    }),
    defineTool({
      name: "todo_read",
      description: "Read the current todo list, for example to re-sync after an interruption.",
      schema: NoInput,
      readOnly: true,
      handle: read,
    }),
    defineTool({
      name: "todo_clear",
      description:
        "Empty the todo list when the work is genuinely finished, so nothing keeps tracking it.",
      schema: NoInput,
      readOnly: false,
      handle: clear,
    }),
  ];
}
