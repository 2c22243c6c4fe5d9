import { z } from "zod";
import { canonicalText } from "../todo/model.js";
import type { Todo, TodoList, TodoTool } from "../types.js";
import { countStatuses, plural } from "./display.js";
import { nextFreeId } from "./ids.js";
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

const WriteInput = z.strictObject({
  items: z
    .array(nonBlank("One todo, in the imperative."))
    .min(1)
    .describe("Todos to add; each gets a new id."),
});

const ListInput = z.strictObject({});

const UpdateInput = z.strictObject({
  id: z
    .union([z.string().max(MAX_TODO_TEXT), z.number()])
    .describe("The id todo_write returned (also shown by todo_list)."),
  status: z.enum(["done", "blocked"]).describe('"done" closes the item; "blocked" holds it.'),
  reason: z
    .string()
    .max(MAX_TODO_TEXT)
    .describe('Why the item is blocked; required with "blocked".')
    .optional(),
});

/** Ids shown in an "unknown id" error; a longer list is cut short. */
const MAX_IDS_SHOWN = 20;

/** Parley's own words for statuses: open, done, blocked. */
function statusWord(todo: Todo): string {
  switch (todo.status) {
    case "pending":
      return "open";
    case "in_progress":
      return "open, in progress";
    case "completed":
      return "done";
    case "cancelled":
      return "cancelled";
    case "blocked":
      return `blocked: ${canonicalText(todo.blockedReason ?? "")}`;
  }
}

function idLabel(todo: Todo): string {
  return todo.id === undefined ? "[no id]" : `[${todo.id}]`;
}

/** `[1842] Roll back the deploy (open)`. */
export function parleyLine(todo: Todo): string {
  return `${idLabel(todo)} ${canonicalText(todo.content)} (${statusWord(todo)})`;
}

/** "2 open, 1 blocked, 3 done". */
function tally(list: TodoList): string {
  const c = countStatuses(list.todos);
  const parts = [`${c.pending + c.in_progress} open`];
  if (c.blocked > 0) parts.push(`${c.blocked} blocked`);
  parts.push(`${c.completed} done`);
  if (c.cancelled > 0) parts.push(`${c.cancelled} cancelled`);
  return parts.join(", ");
}

function write(list: TodoList, input: unknown): Handled {
  const parsed = parseInput("todo_write", WriteInput, input);
  if (!parsed.ok) return refuse(list, parsed.message);
  const next = cloneList(list);
  let id = nextFreeId(list);
  const added: Todo[] = [];
  for (const item of parsed.value.items) {
    const todo: Todo = { content: item.trim(), status: "pending", id: String(id) };
    id++;
    added.push(todo);
    next.todos.push(todo);
  }
  next.nextId = id;
  const ids = added.map((t) => t.id as string);
  const text = [
    `Added ${plural(added.length, "todo")}:`,
    ...added.map((t) => `  [${t.id}] ${canonicalText(t.content)}`),
    `Close each with todo_update(id, "done") as you finish, or todo_update(id, "blocked", reason).`,
  ].join("\n");
  return succeed(next, text, { ids, todos: cloneList(next).todos });
}

function list(current: TodoList, input: unknown): Handled {
  const parsed = parseInput("todo_list", ListInput, input, { emptyIsObject: true });
  if (!parsed.ok) return refuse(current, parsed.message);
  const text =
    current.todos.length === 0
      ? "No todos. Add some with todo_write(items)."
      : [`Todos (${tally(current)}):`, ...current.todos.map((t) => `  ${parleyLine(t)}`)].join(
          "\n",
        );
  return succeed(current, text, { todos: cloneList(current).todos });
}

function unknownId(list: TodoList, id: string): string {
  const ids = list.todos.flatMap((t) => (t.id === undefined ? [] : [t.id]));
  if (ids.length === 0) {
    return `todo_update: id ${quoteInput(id)} not found; the list has no items with ids (add some with todo_write)`;
  }
  const shown = ids.slice(0, MAX_IDS_SHOWN).join(", ");
  const more = ids.length > MAX_IDS_SHOWN ? `, and ${ids.length - MAX_IDS_SHOWN} more` : "";
  return `todo_update: id ${quoteInput(id)} not found; valid ids: ${shown}${more}`;
}

function update(list: TodoList, input: unknown): Handled {
  const parsed = parseInput("todo_update", UpdateInput, input);
  if (!parsed.ok) return refuse(list, parsed.message);
  const { status, reason } = parsed.value;
  const id = String(parsed.value.id).trim();
  const reasonText = (reason ?? "").trim();
  if (status === "blocked" && reasonText === "") {
    return refuse(list, 'todo_update: reason is required when status is "blocked"');
  }
  const matches = list.todos.flatMap((t, i) => (t.id === id ? [i] : []));
  if (matches.length === 0) return refuse(list, unknownId(list, id));
  if (matches.length > 1) {
    // Only a hand edit can duplicate an id; guessing which item was meant could close the wrong one.
    return refuse(
      list,
      `todo_update: id ${quoteInput(id)} belongs to ${matches.length} items; fix the list before updating it`,
    );
  }
  const next = cloneList(list);
  const todo = next.todos[matches[0] as number] as Todo;
  if (status === "done") {
    todo.status = "completed";
    delete todo.blockedReason;
  } else {
    todo.status = "blocked";
    todo.blockedReason = reasonText;
  }
  const verb = status === "done" ? "marked done" : `blocked (${canonicalText(reasonText)})`;
  const c = countStatuses(next.todos);
  const tail =
    c.pending + c.in_progress === 0
      ? `No open todos left (${tally(next)}).`
      : `Remaining: ${tally(next)}.`;
  return succeed(next, `[${id}] ${canonicalText(todo.content)} ${verb}. ${tail}`, {
    todo: structuredClone(todo),
    todos: cloneList(next).todos,
  });
}

/** AgentParley's tools (seed 002): items get numeric ids and are closed by id. */
export function parleyTools(): TodoTool[] {
  return [
    defineTool({
      name: "todo_write",
      description:
        "Add one or more todos (items: string[]). Returns each new item's id; keep the ids " +
        'to close items later with todo_update(id, "done").',
      schema: WriteInput,
      readOnly: false,
      handle: write,
    }),
    defineTool({
      name: "todo_list",
      description:
        "List the todos with their ids and statuses (open, done, blocked with its reason).",
      schema: ListInput,
      readOnly: true,
      handle: list,
    }),
    defineTool({
      name: "todo_update",
      description:
        'Close a todo: todo_update(id, "done") when it is finished and verified, or ' +
        'todo_update(id, "blocked", reason) when it cannot proceed.',
      schema: UpdateInput,
      readOnly: false,
      handle: update,
    }),
  ];
}
