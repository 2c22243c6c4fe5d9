import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanInputError, todosFromUpdatePlan } from "./plan.js";

describe("todosFromUpdatePlan", () => {
  it("turns the plan into the todo list, in order", () => {
    expect(
      todosFromUpdatePlan({
        explanation: "why",
        plan: [
          { step: " write the parser ", status: "completed" },
          { step: "test it", status: "in_progress" },
          { step: "document it", status: "pending" },
        ],
      }),
    ).toEqual([
      { content: "write the parser", status: "completed" },
      { content: "test it", status: "in_progress" },
      { content: "document it", status: "pending" },
    ]);
    expect(todosFromUpdatePlan({ plan: [] })).toEqual([]);
  });

  it("refuses a malformed plan, naming the entry", () => {
    expect(() => todosFromUpdatePlan(null)).toThrow(/must be an object/);
    expect(() => todosFromUpdatePlan({ plan: "a" })).toThrow(/plan must be an array/);
    expect(() => todosFromUpdatePlan({ plan: [{ step: "", status: "pending" }] })).toThrow(
      /plan\[0\]\.step/,
    );
    expect(() =>
      todosFromUpdatePlan({
        plan: [
          { step: "a", status: "pending" },
          { step: "b", status: "done" },
        ],
      }),
    ).toThrow(/plan\[1\]\.status/);
  });

  it("either converts every step or throws its own error", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        try {
          const todos = todosFromUpdatePlan(input);
          expect(todos).toHaveLength((input as { plan: unknown[] }).plan.length);
        } catch (error) {
          expect(error).toBeInstanceOf(PlanInputError);
        }
      }),
    );
  });
});
