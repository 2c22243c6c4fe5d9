import { describe, expect, it } from "vitest";
import { emptyList } from "../todo/model.js";
import type { TodoList } from "../types.js";
import { parleyTools } from "./parley.js";
import { deepFreeze } from "./test-support/arbitraries.js";
import { findTool } from "./toolset.js";

const tools = parleyTools();
const write = findTool(tools, "todo_write")!;
const list = findTool(tools, "todo_list")!;
const update = findTool(tools, "todo_update")!;

function seeded(): TodoList {
  return write.handler(emptyList(), {
    items: ["Roll back the deploy", "Confirm the queue drained", "Post-mortem note"],
  }).list;
}

describe("parley todo_write", () => {
  it("appends pending items and returns their ids", () => {
    const { list: after, result } = write.handler(deepFreeze(emptyList()), {
      items: [" Roll back the deploy ", "Confirm the queue drained"],
    });
    expect(after).toEqual({
      phases: [],
      nextId: 3,
      todos: [
        { content: "Roll back the deploy", status: "pending", id: "1" },
        { content: "Confirm the queue drained", status: "pending", id: "2" },
      ],
    });
    expect(result.details.ids).toEqual(["1", "2"]);
    expect(result.text).toBe(
      [
        "Added 2 todos:",
        "  [1] Roll back the deploy",
        "  [2] Confirm the queue drained",
        'Close each with todo_update(id, "done") as you finish, or todo_update(id, "blocked", reason).',
      ].join("\n"),
    );
  });

  it("never reuses an id, even after items are gone or the counter fell behind", () => {
    const gone: TodoList = { todos: [], phases: [], nextId: 8 };
    expect(write.handler(gone, { items: ["x"] }).result.details.ids).toEqual(["8"]);
    const behind: TodoList = {
      todos: [{ content: "a", status: "pending", id: "41" }],
      phases: [],
      nextId: 2,
    };
    const { list: after, result } = write.handler(behind, { items: ["b", "c"] });
    expect(result.details.ids).toEqual(["42", "43"]);
    expect(after.nextId).toBe(44);
  });

  it.each([
    [{ items: [] }, "todo_write: items must contain at least 1 item"],
    [{ items: ["ok", " "] }, "todo_write: items[1] must not be blank"],
    [{ items: ["ok", 3] }, "todo_write: items[1] must be a string (got 3)"],
    [{ items: "one" }, 'todo_write: items must be an array (got "one")'],
    [
      { todos: ["x"] },
      'todo_write: items is required; input has unknown field "todos" (allowed: items)',
    ],
  ])("refuses %j and keeps the list", (input, message) => {
    const before = deepFreeze(seeded());
    const { list: after, result } = write.handler(before, input);
    expect(after).toBe(before);
    expect(result).toEqual({ text: message, isError: true, details: {} });
  });
});

describe("parley todo_list", () => {
  it("shows ids, statuses and blocked reasons", () => {
    let current = seeded();
    current = update.handler(current, { id: "1", status: "done" }).list;
    current = update.handler(current, {
      id: 3,
      status: "blocked",
      reason: "waiting on on-call",
    }).list;
    const { list: after, result } = list.handler(current, {});
    expect(after).toBe(current);
    expect(result.text).toBe(
      [
        "Todos (1 open, 1 blocked, 1 done):",
        "  [1] Roll back the deploy (done)",
        "  [2] Confirm the queue drained (open)",
        "  [3] Post-mortem note (blocked: waiting on on-call)",
      ].join("\n"),
    );
  });

  it("says how to start when empty", () => {
    expect(list.handler(emptyList(), undefined).result.text).toBe(
      "No todos. Add some with todo_write(items).",
    );
  });
});

describe("parley todo_update", () => {
  it("closes an item by id", () => {
    const { list: after, result } = update.handler(deepFreeze(seeded()), {
      id: "2",
      status: "done",
    });
    expect(after.todos[1]).toEqual({
      content: "Confirm the queue drained",
      status: "completed",
      id: "2",
    });
    expect(result.text).toBe(
      "[2] Confirm the queue drained marked done. Remaining: 2 open, 1 done.",
    );
    expect(result.details.todo).toEqual(after.todos[1]);
  });

  it("blocks an item with its reason, and done clears the reason", () => {
    const blocked = update.handler(seeded(), { id: 1, status: "blocked", reason: " no access " });
    expect(blocked.list.todos[0]).toMatchObject({ status: "blocked", blockedReason: "no access" });
    expect(blocked.result.text).toBe(
      "[1] Roll back the deploy blocked (no access). Remaining: 2 open, 1 blocked, 0 done.",
    );
    const done = update.handler(blocked.list, { id: "1", status: "done" });
    expect(done.list.todos[0]).toEqual({
      content: "Roll back the deploy",
      status: "completed",
      id: "1",
    });
  });

  it("says when nothing is open any more", () => {
    let current = seeded();
    for (const id of ["1", "2"]) current = update.handler(current, { id, status: "done" }).list;
    expect(update.handler(current, { id: "3", status: "done" }).result.text).toBe(
      "[3] Post-mortem note marked done. No open todos left (0 open, 3 done).",
    );
  });

  it.each([
    [{ id: "9", status: "done" }, 'todo_update: id "9" not found; valid ids: 1, 2, 3'],
    [{ id: "1", status: "blocked" }, 'todo_update: reason is required when status is "blocked"'],
    [
      { id: "1", status: "blocked", reason: "  " },
      'todo_update: reason is required when status is "blocked"',
    ],
    [{ id: "1", status: "open" }, 'todo_update: status must be one of done, blocked (got "open")'],
    [{ id: true, status: "done" }, "todo_update: id must be a string or a number (got true)"],
    [{ status: "done" }, "todo_update: id is required"],
  ])("refuses %j and keeps the list", (input, message) => {
    const before = deepFreeze(seeded());
    const { list: after, result } = update.handler(before, input);
    expect(after).toBe(before);
    expect(result).toEqual({ text: message, isError: true, details: {} });
  });

  it("explains an unknown id on a list without ids", () => {
    expect(update.handler(emptyList(), { id: "1", status: "done" }).result.text).toBe(
      'todo_update: id "1" not found; the list has no items with ids (add some with todo_write)',
    );
  });

  it("refuses an id that several items share", () => {
    const twice: TodoList = {
      phases: [],
      nextId: 2,
      todos: [
        { content: "a", status: "pending", id: "1" },
        { content: "b", status: "pending", id: "1" },
      ],
    };
    const { list: after, result } = update.handler(twice, { id: "1", status: "done" });
    expect(after).toBe(twice);
    expect(result.text).toContain('id "1" belongs to 2 items');
  });
});
