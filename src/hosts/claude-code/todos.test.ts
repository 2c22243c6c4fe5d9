import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyList } from "../../core/todo/model.js";
import type { Todo, TodoList } from "../../core/types.js";
import {
  applyTaskChange,
  closeInstructionFor,
  parseTaskChange,
  reconcileWithTaskFiles,
  type TaskFileEntry,
  TodoInputError,
  todoFromTaskFile,
  todosFromTodoWrite,
  toolFamilyOf,
} from "./todos.js";

const list = (...todos: Todo[]): TodoList => ({ ...emptyList(), todos });
const task = (id: string, content: string, status: Todo["status"] = "pending"): Todo => ({
  id,
  content,
  status,
});

describe("todosFromTodoWrite", () => {
  const item = (content: string, status: string) => ({
    content,
    status,
    activeForm: `Doing ${content}`,
  });

  it("maps the whole list, keeping the present-tense label", () => {
    expect(
      todosFromTodoWrite({ todos: [item("A", "in_progress"), item("B", "pending")] }, undefined),
    ).toEqual([
      { content: "A", status: "in_progress", activeForm: "Doing A" },
      { content: "B", status: "pending", activeForm: "Doing B" },
    ]);
  });

  it("prefers the list the host stored over the model's input", () => {
    const todos = todosFromTodoWrite(
      { todos: [item("A", "completed")] },
      { oldTodos: [item("A", "pending")], newTodos: [] },
    );
    expect(todos).toEqual([]);
  });

  it("names the field of a bad item", () => {
    expect(() => todosFromTodoWrite({ todos: [item("A", "done")] }, {})).toThrow(
      /tool_input\.todos\[0\]\.status must be one of pending, in_progress, completed, got "done"/,
    );
    expect(() => todosFromTodoWrite({ todos: [{ status: "pending" }] }, {})).toThrow(
      /tool_input\.todos\[0\]\.content must be a non-empty string/,
    );
    expect(() => todosFromTodoWrite({ todos: "A" }, {})).toThrow(
      /tool_input\.todos must be an array/,
    );
    expect(() => todosFromTodoWrite(null, {})).toThrow(TodoInputError);
  });
});

describe("Task tool changes", () => {
  it("adds a created task under the id the host returned", () => {
    const change = parseTaskChange(
      "TaskCreate",
      { subject: "Write tests", description: "all of them", activeForm: "Writing tests" },
      { task: { id: "7", subject: "Write tests" } },
    );
    expect(applyTaskChange(emptyList(), change).todos).toEqual([
      { id: "7", content: "Write tests", status: "pending", activeForm: "Writing tests" },
    ]);
  });

  it("replaces rather than duplicates a re-created id", () => {
    const change = parseTaskChange("TaskCreate", { subject: "B" }, { task: { id: 1 } });
    expect(applyTaskChange(list(task("1", "A")), change).todos).toEqual([task("1", "B")]);
  });

  it("updates status and subject, and removes a deleted task", () => {
    let l = list(task("1", "A"), task("2", "B"));
    l = applyTaskChange(
      l,
      parseTaskChange(
        "TaskUpdate",
        { taskId: "1", status: "completed", subject: "A!" },
        { success: true },
      ),
    );
    l = applyTaskChange(
      l,
      parseTaskChange("TaskUpdate", { taskId: "2", status: "deleted" }, { success: true }),
    );
    expect(l.todos).toEqual([task("1", "A!", "completed")]);
  });

  it("leaves the list alone for a refused update or an unknown id", () => {
    const l = list(task("1", "A"));
    expect(
      applyTaskChange(
        l,
        parseTaskChange("TaskUpdate", { taskId: "1", status: "completed" }, { success: false }),
      ),
    ).toBe(l);
    expect(
      applyTaskChange(l, parseTaskChange("TaskUpdate", { taskId: "9", status: "completed" }, {})),
    ).toBe(l);
    expect(
      applyTaskChange(l, parseTaskChange("TaskUpdate", { taskId: "9", status: "deleted" }, {})),
    ).toBe(l);
  });

  it("names the field of a bad call before anything is applied", () => {
    expect(() => parseTaskChange("TaskCreate", { subject: "A" }, {})).toThrow(
      /tool_response\.task must be an object/,
    );
    expect(() => parseTaskChange("TaskCreate", { subject: "A" }, { task: { id: "" } })).toThrow(
      /tool_response\.task\.id must be a non-empty string/,
    );
    expect(() => parseTaskChange("TaskUpdate", { status: "completed" }, {})).toThrow(
      /tool_input\.taskId/,
    );
    expect(() => parseTaskChange("TaskUpdate", { taskId: "1", status: "blocked" }, {})).toThrow(
      /tool_input\.status must be one of/,
    );
    expect(() => parseTaskChange("TaskList", {}, {})).toThrow(
      /tool_name must be TaskCreate or TaskUpdate/,
    );
  });

  it("never loses a task it was not asked to change", () => {
    const ids = fc.constantFrom("1", "2", "3", "4");
    const call = fc.oneof(
      fc.record({ tool: fc.constant("TaskCreate"), id: ids }),
      fc.record({
        tool: fc.constant("TaskUpdate"),
        id: ids,
        status: fc.constantFrom("pending", "in_progress", "completed", "deleted"),
      }),
    );
    fc.assert(
      fc.property(fc.array(call, { maxLength: 30 }), (calls) => {
        let l = emptyList();
        const alive = new Set<string>();
        for (const c of calls) {
          const before = new Map(l.todos.map((t) => [t.id, t]));
          const change =
            c.tool === "TaskCreate"
              ? parseTaskChange("TaskCreate", { subject: `task ${c.id}` }, { task: { id: c.id } })
              : parseTaskChange(
                  "TaskUpdate",
                  { taskId: c.id, status: (c as { status: string }).status },
                  {},
                );
          l = applyTaskChange(l, change);
          if (c.tool === "TaskCreate") alive.add(c.id);
          else if ((c as { status: string }).status === "deleted") alive.delete(c.id);
          for (const [id, todo] of before) if (id !== c.id) expect(l.todos).toContainEqual(todo);
        }
        expect(new Set(l.todos.map((t) => t.id))).toEqual(alive);
        expect(l.todos.length).toBe(alive.size);
      }),
    );
  });
});

describe("task files", () => {
  it("reads a task file, a deleted one, and distrusts the rest", () => {
    expect(todoFromTaskFile({ id: "1", subject: "A", status: "in_progress", blocks: [] })).toEqual(
      task("1", "A", "in_progress"),
    );
    expect(todoFromTaskFile({ id: "1", subject: "A", status: "deleted" })).toBe("deleted");
    expect(todoFromTaskFile({ id: "1", status: "pending" })).toBeNull();
    expect(todoFromTaskFile({ id: "1", subject: "A", status: "open" })).toBeNull();
    expect(todoFromTaskFile("{")).toBeNull();
  });

  it("brings known tasks up to date and drops the deleted ones", () => {
    const files = new Map<string, TaskFileEntry>([
      ["1", task("1", "A", "completed")],
      ["3", "deleted"],
      ["4", task("4", "a subagent's task")],
    ]);
    const stored = list(task("1", "A"), task("2", "gone"), task("3", "C"), {
      content: "no id",
      status: "pending",
    });
    expect(reconcileWithTaskFiles(stored, files).todos).toEqual([
      task("1", "A", "completed"),
      { content: "no id", status: "pending" },
    ]);
  });

  it("keeps what it had for an unreadable file, and returns the same list when nothing changed", () => {
    const stored = list(task("1", "A"), task("2", "B"));
    const files = new Map<string, TaskFileEntry>([
      ["1", null],
      ["2", task("2", "B")],
    ]);
    expect(reconcileWithTaskFiles(stored, files)).toBe(stored);
  });
});

describe("tool family", () => {
  it("tells TodoWrite lists from Task lists and names the right tool", () => {
    expect(toolFamilyOf(list({ content: "A", status: "pending" }))).toBe("todo-write");
    expect(toolFamilyOf(list(task("1", "A")))).toBe("tasks");
    expect(closeInstructionFor("tasks")).toMatch(/TaskUpdate/);
    expect(closeInstructionFor("todo-write")).toMatch(/TodoWrite/);
    expect(closeInstructionFor("todo-write")).not.toMatch(/TaskUpdate/);
  });
});
