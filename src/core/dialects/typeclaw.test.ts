import { describe, expect, it } from "vitest";
import type { TodoList } from "../types.js";
import { deepFreeze } from "./test-support/arbitraries.js";
import { findTool } from "./toolset.js";
import { typeclawTools } from "./typeclaw.js";

const tools = typeclawTools();
const write = findTool(tools, "todo_write")!;
const read = findTool(tools, "todo_read")!;
const clear = findTool(tools, "todo_clear")!;

const current: TodoList = deepFreeze({
  phases: ["Old phase"],
  nextId: 4,
  todos: [{ content: "Old", status: "pending", id: "3", phase: "Old phase", notes: ["n"] }],
});

describe("typeclaw todo_write", () => {
  it("replaces the whole list (no merge) and summarizes it", () => {
    const { list, result } = write.handler(current, {
      todos: [
        { content: " Write the parser ", status: "in_progress", priority: "high", id: "p1" },
        { content: "Tests", status: "pending", activeForm: "Running tests" },
        { content: "Deploy", status: "blocked", blockedReason: " no keys " },
        { content: "Spike", status: "cancelled", blockedReason: "stale reason" },
      ],
    });
    expect(result.isError).toBe(false);
    expect(list).toEqual({
      phases: [],
      nextId: 4,
      todos: [
        { content: "Write the parser", status: "in_progress", priority: "high", id: "p1" },
        { content: "Tests", status: "pending", activeForm: "Running tests" },
        { content: "Deploy", status: "blocked", blockedReason: "no keys" },
        { content: "Spike", status: "cancelled" },
      ],
    });
    expect(result.text).toBe(
      [
        "Todo list updated: 4 items (1 in progress, 1 pending, 1 blocked, 1 cancelled).",
        "[/] Write the parser (id p1, high priority)",
        "[ ] Tests",
        "[!] Deploy (blocked: no keys)",
        "[-] Spike",
      ].join("\n"),
    );
    expect(result.details.todos).toEqual(list.todos);
  });

  it("moves the id counter past numeric ids it is given, never back", () => {
    expect(
      write.handler(current, { todos: [{ content: "a", status: "pending", id: "10" }] }).list
        .nextId,
    ).toBe(11);
    expect(write.handler(current, { todos: [] }).list.nextId).toBe(4);
  });

  it("points at todo_clear once every item is closed", () => {
    const { result } = write.handler(current, { todos: [{ content: "a", status: "completed" }] });
    expect(result.text).toContain("call todo_clear");
  });

  it.each([
    [
      {
        todos: [
          { content: "a", status: "pending" },
          { content: "b", status: "pending" },
          { content: "c", status: "done" },
        ],
      },
      'todo_write: todos[2].status must be one of pending, in_progress, completed, cancelled, blocked (got "done")',
    ],
    [
      { todos: [{ content: "  ", status: "pending" }] },
      "todo_write: todos[0].content must not be blank",
    ],
    [{ todos: [{ status: "pending" }] }, "todo_write: todos[0].content is required"],
    [
      { todos: [{ content: 7, status: "pending" }] },
      "todo_write: todos[0].content must be a string (got 7)",
    ],
    [
      { todos: [{ content: "a", status: "pending", priority: "urgent" }] },
      'todo_write: todos[0].priority must be one of high, medium, low (got "urgent")',
    ],
    [
      { todos: [{ content: "a", status: "pending", state: "x" }] },
      'todo_write: todos[0] has unknown field "state" (allowed: content, status, priority, id, blockedReason, activeForm)',
    ],
    [
      { todos: [{ content: "a", status: "blocked" }] },
      'todo_write: todos[0].blockedReason is required when status is "blocked"',
    ],
    [
      { todos: [{ content: "a", status: "blocked", blockedReason: " " }] },
      'todo_write: todos[0].blockedReason is required when status is "blocked"',
    ],
    [
      {
        todos: [
          { content: "a", status: "pending", id: "x" },
          { content: "b", status: "pending", id: " x " },
        ],
      },
      'todo_write: todos[1].id "x" is already used by todos[0]',
    ],
    [{ todos: "a, b" }, 'todo_write: todos must be an array (got "a, b")'],
    [{}, "todo_write: todos is required"],
    [null, "todo_write: input must be an object (got null)"],
    [[1], "todo_write: input must be an object (got an array)"],
  ])("refuses %j and keeps the list", (input, message) => {
    const { list, result } = write.handler(current, input);
    expect(list).toBe(current);
    expect(result).toEqual({ text: message, isError: true, details: {} });
  });

  it("names several bad fields at once", () => {
    const { result } = write.handler(current, {
      todos: [{ content: "", status: "x" }, { content: "b" }],
    });
    expect(result.text).toBe(
      'todo_write: todos[0].content must not be blank; todos[0].status must be one of pending, in_progress, completed, cancelled, blocked (got "x"); todos[1].status is required',
    );
  });
});

describe("typeclaw todo_read", () => {
  it("returns the list unchanged, with or without an empty input", () => {
    for (const input of [undefined, null, {}]) {
      const { list, result } = read.handler(current, input);
      expect(list).toBe(current);
      expect(result.isError).toBe(false);
      expect(result.text).toBe("Todo list: 1 item (1 pending).\n[ ] Old (id 3)");
    }
  });

  it("says when the list is empty", () => {
    expect(read.handler({ todos: [], phases: [], nextId: 1 }, {}).result.text).toBe(
      "Todo list: the list is empty.",
    );
  });

  it("refuses arguments it does not take", () => {
    const { list, result } = read.handler(current, { all: true });
    expect(list).toBe(current);
    expect(result.text).toBe('todo_read: input has unknown field "all"');
  });
});

describe("typeclaw todo_clear", () => {
  it("empties the list but never moves the id counter back", () => {
    const { list, result } = clear.handler(current, {});
    expect(list).toEqual({ todos: [], phases: [], nextId: 4 });
    expect(result).toEqual({
      text: "Todo list cleared.",
      isError: false,
      details: { todos: [], cleared: 1 },
    });
  });

  it("refuses arguments instead of guessing", () => {
    const { list, result } = clear.handler(current, { todos: [] });
    expect(list).toBe(current);
    expect(result.isError).toBe(true);
  });
});
