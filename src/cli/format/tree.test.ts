import { describe, expect, it } from "vitest";
import type { TodoList } from "../../core/types.js";
import { createStyle } from "../style.js";
import { formatTodoTree, markLegend } from "./tree.js";

const plain = createStyle(false);

describe("formatTodoTree", () => {
  it("says when the list is empty", () => {
    expect(formatTodoTree({ todos: [], phases: [], nextId: 1 }, plain)).toEqual([
      "(the list is empty)",
    ]);
  });

  it("prints a flat list with marks, ids and priorities", () => {
    const list: TodoList = {
      todos: [
        { content: "Write the parser", status: "completed", id: "1" },
        { content: "Test it", status: "in_progress", priority: "high" },
        { content: "Ship", status: "pending" },
      ],
      phases: [],
      nextId: 2,
    };
    expect(formatTodoTree(list, plain)).toEqual([
      "[x] Write the parser (#1)",
      "[/] Test it (high)",
      "[ ] Ship",
    ]);
  });

  it("groups items under phases, with loose items first and empty phases shown", () => {
    const list: TodoList = {
      todos: [
        { content: "Deploy", status: "blocked", blockedReason: "no credentials", phase: "Release" },
        { content: "Loose end", status: "cancelled" },
        { content: "Parse", status: "pending", phase: "Build", notes: ["use a state machine"] },
      ],
      phases: ["Build", "Release", "Later"],
      nextId: 1,
    };
    expect(formatTodoTree(list, plain)).toEqual([
      "[-] Loose end",
      "Build",
      "  [ ] Parse",
      "      > use a state machine",
      "Release",
      "  [!] Deploy",
      "      blocked: no credentials",
      "Later",
      "  (no items)",
    ]);
  });
});

describe("markLegend", () => {
  it("names every status", () => {
    for (const word of ["pending", "in progress", "completed", "cancelled", "blocked"]) {
      expect(markLegend()).toContain(word);
    }
  });
});
