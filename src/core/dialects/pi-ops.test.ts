import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TodoList } from "../types.js";
import { fromPhaseTree, groupByPhase, normalizeActive, phaseTree } from "./phases.js";
import { applyPiOps, PiOpInput, quickPiOp } from "./pi-ops.js";
import { deepFreeze, nonBlankText, trickyText, validList } from "./test-support/arbitraries.js";
import { applyPiOpsReference, normalizeActiveReference } from "./test-support/pi-ops-reference.js";
import { MAX_TODO_TEXT } from "./tool.js";

/** Ops aimed at the list's own tasks and phases, plus malformed ones of every kind. */
function opArb(list: TodoList): fc.Arbitrary<unknown> {
  const names = list.todos.map((t) => t.content);
  const task = names.length > 0 ? fc.oneof(fc.constantFrom(...names), nonBlankText) : nonBlankText;
  const phases = list.phases.length > 0 ? list.phases : ["Build"];
  const phase = fc.oneof(fc.constantFrom(...phases), nonBlankText);
  const field = fc.oneof(task, trickyText, fc.constant(undefined), fc.integer());
  return fc.oneof(
    fc.record({
      op: fc.constant("init"),
      list: fc.array(
        fc.record({ phase, items: fc.array(nonBlankText, { minLength: 1, maxLength: 3 }) }),
        { maxLength: 3 },
      ),
    }),
    fc.record(
      { op: fc.constantFrom("start", "done", "drop", "rm", "note"), task, phase, text: field },
      { requiredKeys: ["op"] },
    ),
    fc.record({
      op: fc.constant("append"),
      phase,
      items: fc.array(fc.oneof(task, trickyText), { maxLength: 3 }),
    }),
    fc.record(
      {
        op: fc.oneof(fc.constantFrom("init", "start", "done", "append", "note"), fc.string()),
        task: field,
        phase: field,
        items: fc.oneof(fc.array(field, { maxLength: 2 }), field),
        list: fc.oneof(fc.array(fc.anything(), { maxLength: 2 }), field),
        text: field,
        extra: field,
      },
      { requiredKeys: ["op"] },
    ),
    fc.anything(),
  );
}

const batchArb = validList.chain((list) =>
  fc.tuple(fc.constant(list), fc.array(opArb(list), { minLength: 1, maxLength: 6 })),
);

describe("applyPiOps", () => {
  it("gives exactly what the deep-copying, schema-per-op version gave", () => {
    fc.assert(
      fc.property(batchArb, ([list, ops]) => {
        const input = deepFreeze(structuredClone(list));
        const fast = applyPiOps(input, ops);
        const reference = applyPiOpsReference(structuredClone(list), ops);
        expect(fast.list).toEqual(reference.list);
        expect(fast.errors).toEqual(reference.errors);
        expect(fast.applied).toBe(reference.applied);
        expect(fast.completedTasks).toEqual(reference.completedTasks);
        if (!fast.applied) expect(fast.list).toBe(input);
      }),
      { numRuns: 500 },
    );
  });

  it("agrees with the oracle on refusals that quote a long name (a found counterexample)", () => {
    const list: TodoList = { todos: [{ content: "a", status: "pending" }], phases: [], nextId: 1 };
    const ops = [{ op: "start", task: `${"x".repeat(60)} (blocked: y)` }];
    const fast = applyPiOps(list, ops);
    const reference = applyPiOpsReference(structuredClone(list), ops);
    expect(fast.errors).toEqual(reference.errors);
    expect(fast.errors[0]).toContain("…");
  });

  it("never hands out an item of the input it changed", () => {
    fc.assert(
      fc.property(batchArb, ([list, ops]) => {
        const input = deepFreeze(structuredClone(list));
        const { list: after, applied } = applyPiOps(input, ops);
        fc.pre(applied);
        // Items shared with the (frozen) input must be unchanged copies of them.
        const inputItems = new Set(input.todos);
        for (const todo of after.todos) {
          if (inputItems.has(todo)) expect(Object.isFrozen(todo)).toBe(true);
          else expect(Object.isFrozen(todo)).toBe(false);
        }
        expect(after.todos).not.toBe(input.todos);
      }),
      { numRuns: 300 },
    );
  });
});

describe("quickPiOp", () => {
  it("accepts only what the schema accepts, and reads it the same", () => {
    fc.assert(
      fc.property(
        validList.chain((list) => opArb(list)),
        (raw) => {
          const quick = quickPiOp(raw);
          if (quick === null) return;
          const parsed = PiOpInput.safeParse(raw);
          expect(parsed.success).toBe(true);
          expect(quick).toEqual(parsed.data);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("takes the common well-formed ops without the schema", () => {
    expect(quickPiOp({ op: "done", task: "Parser" })).toEqual({ op: "done", task: "Parser" });
    expect(quickPiOp({ op: "init", list: [{ phase: "A", items: ["a"] }] })).not.toBeNull();
    expect(quickPiOp({ op: "done", task: " " })).toBeNull();
    // Past the schema's length limit the schema must answer (with its message).
    expect(
      quickPiOp({ op: "append", phase: "A", items: ["x".repeat(MAX_TODO_TEXT + 1)] }),
    ).toBeNull();
    expect(quickPiOp({ op: "done", task: "x", extra: 1 })).toBeNull();
    expect(quickPiOp({ op: "append", phase: "A", items: [] })).toBeNull();
    const holey = ["a"];
    holey[2] = "b";
    expect(quickPiOp({ op: "append", phase: "A", items: holey })).toBeNull();
    expect(
      quickPiOp(
        new (class Op {
          op = "done";
        })(),
      ),
    ).toBeNull();
  });
});

describe("groupByPhase and normalizeActive", () => {
  it("group as fromPhaseTree(phaseTree(list)) does, returning an already grouped list itself", () => {
    fc.assert(
      fc.property(validList, (list) => {
        const grouped = groupByPhase(list);
        expect(grouped).toEqual(fromPhaseTree(phaseTree(list), list.nextId));
        expect(groupByPhase(grouped)).toBe(grouped);
      }),
      { numRuns: 500 },
    );
  });

  it("normalizeActive matches the deep-copying version and leaves its input alone", () => {
    fc.assert(
      fc.property(validList, (list) => {
        const input = deepFreeze(structuredClone(list));
        expect(normalizeActive(input)).toEqual(normalizeActiveReference(structuredClone(list)));
      }),
      { numRuns: 500 },
    );
  });
});
