import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseTodo, parseTodoList } from "./parse.js";

describe("parseTodoList", () => {
  it("never throws and always yields a well-formed list", () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const list = parseTodoList(raw);
        expect(Array.isArray(list.todos)).toBe(true);
        expect(Number.isSafeInteger(list.nextId) && list.nextId >= 1).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it("drops malformed entries and keeps the rest", () => {
    const list = parseTodoList({
      todos: [
        { content: "kept", status: "pending" },
        { content: "bad status", status: "done" },
        { content: "", status: "pending" },
        { content: "blocked without a reason", status: "blocked" },
        { content: "bad priority", status: "pending", priority: "urgent" },
        "not an object",
        {
          content: "also kept",
          status: "blocked",
          blockedReason: "waiting on review",
          notes: ["n"],
        },
      ],
      phases: ["a", "a", 3, "b"],
      nextId: 2,
    });
    expect(list.todos.map((t) => t.content)).toEqual(["kept", "also kept"]);
    expect(list.phases).toEqual(["a", "b"]);
  });

  it("never lets a hand edit make ids reusable", () => {
    const list = parseTodoList({
      todos: [{ content: "x", status: "pending", id: "41" }],
      nextId: 3,
    });
    expect(list.nextId).toBe(42);
  });

  it("reads a single todo strictly", () => {
    expect(parseTodo({ content: "x", status: "pending", notes: [1] })).toBeNull();
    expect(parseTodo({ content: "x", status: "pending", id: 7 })).toBeNull();
    expect(parseTodo({ content: "x", status: "in_progress", activeForm: "Doing x" })).toEqual({
      content: "x",
      status: "in_progress",
      activeForm: "Doing x",
    });
  });
});
