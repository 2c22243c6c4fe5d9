import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { todosFromOpenCode } from "./todos.js";

describe("todosFromOpenCode", () => {
  it("keeps content, status and priority, in order, and ignores ids", () => {
    expect(
      todosFromOpenCode([
        { content: "a", status: "pending", priority: "high", id: "1" },
        { content: "b", status: "in_progress", priority: "low" },
        { content: "c", status: "completed", priority: "medium" },
        { content: "d", status: "cancelled", priority: "urgent" },
      ]),
    ).toEqual([
      { content: "a", status: "pending", priority: "high" },
      { content: "b", status: "in_progress", priority: "low" },
      { content: "c", status: "completed", priority: "medium" },
      { content: "d", status: "cancelled" },
    ]);
  });

  it("keeps an unknown status as blocked, naming it, so it never drives a nudge", () => {
    expect(todosFromOpenCode([{ content: "x", status: "deferred" }])).toEqual([
      {
        content: "x",
        status: "blocked",
        blockedReason: 'OpenCode status "deferred" is not one this integration knows',
      },
    ]);
  });

  it("drops items without text and keeps duplicates apart by position", () => {
    expect(
      todosFromOpenCode([
        null,
        3,
        { content: "  " },
        { content: "same", status: "pending" },
        { content: "same", status: "completed" },
      ]),
    ).toEqual([
      { content: "same", status: "pending" },
      { content: "same", status: "completed" },
    ]);
  });

  it("throws on anything that is not a list", () => {
    expect(() => todosFromOpenCode(undefined)).toThrow(
      "OpenCode todo list must be an array, got undefined",
    );
    expect(() => todosFromOpenCode({ todos: [] })).toThrow("got object");
  });

  it("never yields an actionable item OpenCode did not mark pending or in progress", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ content: fc.string(), status: fc.string(), priority: fc.string() })),
        (raw) => {
          const todos = todosFromOpenCode(raw);
          const actionable = todos.filter(
            (t) => t.status === "pending" || t.status === "in_progress",
          );
          const expected = raw.filter(
            (t) =>
              t.content.trim() !== "" && (t.status === "pending" || t.status === "in_progress"),
          );
          expect(actionable.map((t) => t.content)).toEqual(expected.map((t) => t.content));
        },
      ),
    );
  });
});
