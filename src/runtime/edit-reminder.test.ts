import { describe, expect, it } from "vitest";
import type { TodoList } from "../core/types.js";
import { describeChanges, editReminder, MAX_REMINDER_LIST_CHARS } from "./edit-reminder.js";

function list(todos: TodoList["todos"], phases: string[] = []): TodoList {
  return { todos, phases, nextId: 1 };
}

describe("describeChanges", () => {
  it("finds added, removed and re-statused items by their text", () => {
    const before = list([
      { content: "Parse", status: "pending" },
      { content: "Test", status: "pending" },
    ]);
    const after = list([
      { content: "Parse", status: "completed" },
      { content: "Deploy", status: "blocked", blockedReason: "no keys" },
    ]);
    expect(describeChanges(before, after)).toEqual([
      '"Parse" is now completed',
      'added "Deploy" (blocked)',
      'removed "Test"',
    ]);
  });

  it("matches items by id, so a reworded item is not a removal", () => {
    const before = list([{ content: "Old words", status: "pending", id: "1" }]);
    const after = list([{ content: "New words", status: "in_progress", id: "1" }]);
    expect(describeChanges(before, after)).toEqual([
      'reworded "Old words" to "New words"',
      '"New words" is now in progress',
    ]);
  });

  it("says so when only phases, notes or order moved", () => {
    const before = list([{ content: "A", status: "pending" }]);
    const after = list([{ content: "A", status: "pending", notes: ["a note"] }]);
    expect(describeChanges(before, after)).toEqual(["changed phases, notes or the order of items"]);
    expect(describeChanges(before, before)).toEqual([]);
  });

  it("counts a duplicated item as added", () => {
    const before = list([{ content: "A", status: "pending" }]);
    const after = list([
      { content: "A", status: "pending" },
      { content: "A", status: "pending" },
    ]);
    expect(describeChanges(before, after)).toEqual(['added "A" (pending)']);
  });
});

describe("editReminder", () => {
  it("tells the model what changed and quotes the new list", () => {
    const text = editReminder(
      list([{ content: "A", status: "pending" }]),
      list([{ content: "A", status: "completed" }]),
    );
    expect(text).toContain("edited your todo list by hand");
    expect(text).toContain('"A" is now completed');
    expect(text).toContain("- [x] A");
  });

  it("keeps a huge list from flooding the model's context", () => {
    const big = list(
      Array.from({ length: 500 }, (_, i) => ({
        content: `item number ${i} ${"x".repeat(40)}`,
        status: "pending" as const,
      })),
    );
    const text = editReminder(list([]), big);
    expect(text.length).toBeLessThan(MAX_REMINDER_LIST_CHARS + 3_000);
    expect(text).toContain("and 480 more");
    expect(text).toContain("(cut; read the whole list");
  });
});
