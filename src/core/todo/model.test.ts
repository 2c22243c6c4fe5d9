import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TodoList } from "../types.js";
import {
  canonicalText,
  isActionable,
  isIncomplete,
  orderedPhases,
  withoutFinished,
} from "./model.js";

describe("todo model", () => {
  it("incomplete = not completed/cancelled; actionable = pending/in_progress", () => {
    expect(
      ["pending", "in_progress", "blocked", "completed", "cancelled"].map((s) =>
        isIncomplete(s as never),
      ),
    ).toEqual([true, true, true, false, false]);
    expect(["pending", "in_progress", "blocked"].map((s) => isActionable(s as never))).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("canonical text collapses whitespace", () => {
    expect(canonicalText("  a \t b\n")).toBe("a b");
  });

  it("canonical text equals collapsing every whitespace run and trimming, for any text", () => {
    const spaces = [" ", "  ", "\t", "\n", "\u00a0", "\u2028", "\u3000", "\ufeff", "\u200a"];
    const text = fc
      .array(fc.oneof(fc.constantFrom(...spaces), fc.string({ maxLength: 4 })), { maxLength: 8 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (s) => {
        expect(canonicalText(s)).toBe(s.replace(/\s+/g, " ").trim());
      }),
      { numRuns: 1000 },
    );
  });

  it("keeps declared phase order, empty phases included, then undeclared ones", () => {
    const list: TodoList = {
      phases: ["Plan", "Empty", "Build"],
      nextId: 1,
      todos: [
        { content: "x", status: "pending", phase: "Ship" },
        { content: "y", status: "pending", phase: "Build" },
      ],
    };
    expect(orderedPhases(list)).toEqual(["Plan", "Empty", "Build", "Ship"]);
  });

  it("withoutFinished drops completed and cancelled items only", () => {
    const list: TodoList = {
      phases: [],
      nextId: 1,
      todos: [
        { content: "a", status: "completed" },
        { content: "b", status: "blocked", blockedReason: "r" },
        { content: "c", status: "cancelled" },
      ],
    };
    expect(withoutFinished(list).todos.map((t) => t.content)).toEqual(["b"]);
  });
});
