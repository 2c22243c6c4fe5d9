import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  closeInstructionFor,
  familyOfList,
  GeminiTodoInputError,
  todosAfterTool,
} from "./todos.js";

describe("todosAfterTool", () => {
  it("reads write_todos' list, all five statuses", () => {
    const todos = [
      { description: "a", status: "pending" },
      { description: "b", status: "in_progress" },
      { description: "c", status: "completed" },
      { description: "d", status: "cancelled" },
      { description: "e", status: "blocked" },
    ];
    const list = todosAfterTool(
      "write_todos",
      { todos },
      { llmContent: "ok", returnDisplay: { todos } },
    );
    expect(list?.map((t) => t.status)).toEqual([
      "pending",
      "in_progress",
      "completed",
      "cancelled",
      "blocked",
    ]);
    expect(list?.[4]?.blockedReason).toBeTruthy();
    expect(todosAfterTool("write_todos", { todos }, undefined)?.map((t) => t.content)).toEqual([
      "a",
      "b",
      "c",
      "d",
      "e",
    ]);
  });

  it("reads the tracker's whole tree from the answer, with its ids, as 0.61.0 renders it", () => {
    const response = {
      llmContent: "Created task a7a047: task B",
      returnDisplay: {
        todos: [
          { description: "task: task B (a7a047)", status: "pending" },
          { description: "  task: task A (c2fad5)", status: "completed" },
        ],
      },
    };
    const list = todosAfterTool("tracker_create_task", { title: "task B" }, response);
    expect(list).toEqual([
      { content: "task: task B (a7a047)", status: "pending", id: "a7a047" },
      { content: "task: task A (c2fad5)", status: "completed", id: "c2fad5" },
    ]);
    expect(familyOfList(list ?? [])).toBe("tracker");
  });

  it("leaves the list alone after a failed call or another tool", () => {
    const failed = {
      llmContent: "Error updating task",
      returnDisplay: "Failed to update task.",
      error: { message: "Task with ID 179567 not found.", type: "execution_failed" },
    };
    expect(todosAfterTool("tracker_update_task", { id: "179567" }, failed)).toBeNull();
    expect(todosAfterTool("read_file", {}, {})).toBeNull();
    expect(todosAfterTool("tracker_get_task", {}, { returnDisplay: { todos: [] } })).toBeNull();
  });

  it("refuses a malformed list, naming the field", () => {
    expect(() => todosAfterTool("write_todos", { todos: "x" }, {})).toThrow(
      /tool_input.todos must be an array/,
    );
    expect(() =>
      todosAfterTool("write_todos", { todos: [{ description: "a", status: "done" }] }, {}),
    ).toThrow(/status must be one of/);
    expect(() =>
      todosAfterTool("write_todos", {}, { returnDisplay: { todos: [{ status: "pending" }] } }),
    ).toThrow(/description must be a non-empty string/);
  });

  it("throws only its own error on any input", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (input, response) => {
        try {
          todosAfterTool("write_todos", input, response);
        } catch (error) {
          expect(error).toBeInstanceOf(GeminiTodoInputError);
        }
      }),
    );
  });

  it("tells the model how to close items with the tool it has", () => {
    expect(closeInstructionFor("tracker")).toContain("tracker_update_task");
    expect(closeInstructionFor("write-todos")).toContain("write_todos");
    expect(familyOfList([{ content: "a", status: "pending" }])).toBe("write-todos");
  });
});
