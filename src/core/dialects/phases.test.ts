import { describe, expect, it } from "vitest";
import type { TodoList } from "../types.js";
import { fromPhaseTree, normalizeActive, phaseTree } from "./phases.js";

const mixed: TodoList = {
  phases: ["B", "A", "Empty"],
  nextId: 1,
  todos: [
    { content: "a1", status: "pending", phase: "A" },
    { content: "loose", status: "completed" },
    { content: "b1", status: "pending", phase: "B" },
    { content: "x1", status: "pending", phase: "Undeclared" },
  ],
};

describe("phaseTree", () => {
  it("groups loose tasks first, then phases in order, empty and undeclared ones included", () => {
    expect(phaseTree(mixed).map((g) => [g.name, g.tasks.map((t) => t.content)])).toEqual([
      [null, ["loose"]],
      ["B", ["b1"]],
      ["A", ["a1"]],
      ["Empty", []],
      ["Undeclared", ["x1"]],
    ]);
  });

  it("has no loose group when every task has a phase", () => {
    expect(phaseTree({ ...mixed, todos: mixed.todos.slice(2) })[0]?.name).toBe("B");
  });

  it("rebuilds a grouped list that declares every phase", () => {
    const list = fromPhaseTree(phaseTree(mixed), 5);
    expect(list.phases).toEqual(["B", "A", "Empty", "Undeclared"]);
    expect(list.todos.map((t) => t.content)).toEqual(["loose", "b1", "a1", "x1"]);
    expect(list.nextId).toBe(5);
  });
});

describe("normalizeActive", () => {
  it("starts the first pending task in phase order when none is in progress", () => {
    const list = normalizeActive(mixed);
    expect(list.todos.find((t) => t.status === "in_progress")?.content).toBe("b1");
    expect(mixed.todos[2]?.status).toBe("pending"); // input untouched
  });

  it("keeps only the first of several in-progress tasks", () => {
    const list = normalizeActive({
      phases: ["A", "B"],
      nextId: 1,
      todos: [
        { content: "b", status: "in_progress", phase: "B" },
        { content: "a", status: "in_progress", phase: "A" },
      ],
    });
    expect(list.todos.map((t) => [t.content, t.status])).toEqual([
      ["a", "in_progress"],
      ["b", "pending"],
    ]);
  });

  it("never starts a blocked task", () => {
    const list = normalizeActive({
      phases: [],
      nextId: 1,
      todos: [{ content: "x", status: "blocked", blockedReason: "waiting" }],
    });
    expect(list.todos[0]?.status).toBe("blocked");
  });
});
