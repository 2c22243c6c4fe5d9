import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyList } from "../todo/model.js";
import { parseTodoList } from "../todo/parse.js";
import type { TodoList, TodoStatus } from "../types.js";
import { piTools } from "./pi.js";
import { deepFreeze, nonBlankText, trickyText, validList } from "./test-support/arbitraries.js";

const [tool] = piTools();
if (!tool) throw new Error("pi has a todo_write tool");

function run(list: TodoList, ops: unknown[]) {
  return tool!.handler(deepFreeze(structuredClone(list)), { ops });
}

function statuses(list: TodoList): [string, TodoStatus][] {
  return list.todos.map((t) => [t.content, t.status]);
}

const plan: TodoList = {
  phases: ["Build", "Ship"],
  nextId: 1,
  todos: [
    { content: "Parser", status: "in_progress", phase: "Build" },
    { content: "Tests", status: "pending", phase: "Build" },
    { content: "Release", status: "pending", phase: "Ship" },
  ],
};

describe("pi todo_write: init", () => {
  it("replaces everything; new tasks start pending and the first one is started", () => {
    const { list, result } = run(plan, [
      { op: "init", list: [{ phase: " Plan ", items: [" Read the brief ", "Sketch"] }] },
    ]);
    expect(result.isError).toBe(false);
    expect(list).toEqual({
      phases: ["Plan"],
      nextId: 1,
      todos: [
        { content: "Read the brief", status: "in_progress", phase: "Plan" },
        { content: "Sketch", status: "pending", phase: "Plan" },
      ],
    });
  });

  it("merges repeated phase names and keeps the id counter", () => {
    const { list } = run({ ...plan, nextId: 9 }, [
      {
        op: "init",
        list: [
          { phase: "A", items: ["a1"] },
          { phase: "B", items: ["b1"] },
          { phase: "A", items: ["a2"] },
        ],
      },
    ]);
    expect(list.phases).toEqual(["A", "B"]);
    expect(list.todos.map((t) => t.content)).toEqual(["a1", "a2", "b1"]);
    expect(list.nextId).toBe(9);
  });

  it("with an empty list clears everything", () => {
    const { list, result } = run(plan, [{ op: "init", list: [] }]);
    expect(list.todos).toEqual([]);
    expect(list.phases).toEqual([]);
    expect(result.text).toBe("Todo list cleared.");
  });

  it("needs a list, and each phase needs items", () => {
    expect(run(plan, [{ op: "init" }]).result.text).toContain('ops[0].list is required for "init"');
    expect(run(plan, [{ op: "init", list: [{ phase: "A", items: [] }] }]).result.text).toContain(
      "ops[0].list[0].items must contain at least 1 item",
    );
  });
});

describe("pi todo_write: status transitions (seed 004's table)", () => {
  const cases: [TodoStatus, "start" | "done" | "drop", TodoStatus][] = [
    ["pending", "start", "in_progress"],
    ["pending", "done", "completed"],
    ["pending", "drop", "cancelled"],
    ["in_progress", "start", "in_progress"],
    ["in_progress", "done", "completed"],
    ["in_progress", "drop", "cancelled"],
    ["completed", "start", "in_progress"],
    ["completed", "done", "completed"],
    ["completed", "drop", "cancelled"],
    ["cancelled", "start", "in_progress"],
    ["cancelled", "done", "completed"],
    ["cancelled", "drop", "cancelled"],
    ["blocked", "start", "in_progress"],
    ["blocked", "done", "completed"],
    ["blocked", "drop", "cancelled"],
  ];
  it.each(cases)("%s + %s -> %s", (from, op, to) => {
    const list: TodoList = {
      phases: ["P"],
      nextId: 1,
      todos: [
        { content: "target", status: from, phase: "P" },
        { content: "other", status: "completed", phase: "P" },
      ],
    };
    if (from === "blocked") list.todos[0]!.blockedReason = "waiting";
    const after = run(list, [{ op, task: "target" }]).list;
    expect(after.todos[0]?.status).toBe(to);
    expect(after.todos[0]?.blockedReason).toBeUndefined();
  });
});

describe("pi todo_write: start", () => {
  it("makes one task active and sends the others back to pending", () => {
    const { list } = run(plan, [{ op: "start", task: "Release" }]);
    expect(statuses(list)).toEqual([
      ["Parser", "pending"],
      ["Tests", "pending"],
      ["Release", "in_progress"],
    ]);
  });

  it("matches the exact content, ignoring only surrounding spaces", () => {
    expect(run(plan, [{ op: "start", task: "  Tests " }]).list.todos[1]?.status).toBe(
      "in_progress",
    );
    const { list, result } = run(plan, [{ op: "start", task: "tests" }]);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(
      'ops[0]: task "tests" not found (tasks are matched by their exact content)',
    );
    expect(list).toEqual(plan);
  });

  it("hints at init or append when the list is empty", () => {
    expect(run(emptyList(), [{ op: "start", task: "x" }]).result.text).toContain(
      'task "x" not found (the list is empty; create tasks with init or append)',
    );
  });

  it("needs a task", () => {
    expect(run(plan, [{ op: "start" }]).result.text).toContain(
      'ops[0].task is required for "start"',
    );
    expect(run(plan, [{ op: "start", task: "  " }]).result.text).toContain(
      "ops[0].task must not be blank",
    );
  });
});

describe("pi todo_write: done and drop", () => {
  it("target one task, one phase, or every task", () => {
    expect(statuses(run(plan, [{ op: "done", task: "Tests" }]).list)[1]).toEqual([
      "Tests",
      "completed",
    ]);
    expect(statuses(run(plan, [{ op: "done", phase: "Build" }]).list)).toEqual([
      ["Parser", "completed"],
      ["Tests", "completed"],
      ["Release", "in_progress"],
    ]);
    expect(statuses(run(plan, [{ op: "drop" }]).list)).toEqual([
      ["Parser", "cancelled"],
      ["Tests", "cancelled"],
      ["Release", "cancelled"],
    ]);
  });

  it("prefer the task when both task and phase are given", () => {
    const { list } = run(plan, [{ op: "done", task: "Release", phase: "Build" }]);
    expect(statuses(list).map(([, s]) => s)).toEqual(["in_progress", "pending", "completed"]);
  });

  it("report a missing phase", () => {
    const { list, result } = run(plan, [{ op: "drop", phase: "QA" }]);
    expect(result.text).toContain('ops[0]: phase "QA" not found');
    expect(list).toEqual(plan);
  });

  it("dropping the active task starts the next pending one", () => {
    const { list } = run(plan, [{ op: "drop", task: "Parser" }]);
    expect(statuses(list)).toEqual([
      ["Parser", "cancelled"],
      ["Tests", "in_progress"],
      ["Release", "pending"],
    ]);
  });
});

describe("pi todo_write: rm", () => {
  it("removes one task", () => {
    expect(run(plan, [{ op: "rm", task: "Tests" }]).list.todos.map((t) => t.content)).toEqual([
      "Parser",
      "Release",
    ]);
  });

  it("empties a phase but keeps it", () => {
    const { list } = run(plan, [{ op: "rm", phase: "Build" }]);
    expect(list.phases).toEqual(["Build", "Ship"]);
    expect(statuses(list)).toEqual([["Release", "in_progress"]]);
  });

  it("with no target removes every task and keeps the phases", () => {
    const { list, result } = run(plan, [{ op: "rm" }]);
    expect(list).toEqual({ phases: ["Build", "Ship"], todos: [], nextId: 1 });
    expect(result.text).toBe("Todo list cleared.");
  });

  it("is not idempotent: removing a task twice fails the second time", () => {
    const { list, result } = run(plan, [
      { op: "rm", task: "Tests" },
      { op: "rm", task: "Tests" },
    ]);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('ops[1]: task "Tests" not found');
    expect(list.todos).toHaveLength(2);
  });
});

describe("pi todo_write: append", () => {
  it("adds pending tasks at the end of an existing phase", () => {
    const { list } = run(plan, [{ op: "append", phase: "Build", items: ["Docs"] }]);
    expect(list.todos.map((t) => [t.content, t.phase, t.status])).toEqual([
      ["Parser", "Build", "in_progress"],
      ["Tests", "Build", "pending"],
      ["Docs", "Build", "pending"],
      ["Release", "Ship", "pending"],
    ]);
  });

  it("creates a missing phase at the end", () => {
    const { list } = run(plan, [{ op: "append", phase: "QA", items: ["Smoke test"] }]);
    expect(list.phases).toEqual(["Build", "Ship", "QA"]);
    expect(list.todos.at(-1)).toEqual({ content: "Smoke test", status: "pending", phase: "QA" });
  });

  it("rejects content that already exists anywhere, adding the rest", () => {
    const { list, result } = run(plan, [
      { op: "append", phase: "Ship", items: ["Tests", "Announce", "Announce"] },
    ]);
    expect(result.isError).toBe(true);
    expect(result.details.errors).toEqual([
      'ops[0]: task "Tests" already exists',
      'ops[0]: task "Announce" already exists',
    ]);
    expect(list.todos.map((t) => t.content)).toEqual(["Parser", "Tests", "Release", "Announce"]);
  });

  it("needs a phase and items", () => {
    expect(run(plan, [{ op: "append", items: ["x"] }]).result.text).toContain(
      'ops[0].phase is required for "append"',
    );
    expect(run(plan, [{ op: "append", phase: "A" }]).result.text).toContain(
      'ops[0].items is required for "append"',
    );
    expect(run(plan, [{ op: "append", phase: "A", items: [] }]).result.text).toContain(
      "ops[0].items must contain at least 1 item",
    );
  });
});

describe("pi todo_write: note", () => {
  it("appends the note with trailing whitespace removed", () => {
    const { list } = run(plan, [
      { op: "note", task: "Parser", text: "  indented  \n" },
      { op: "note", task: "Parser", text: "second" },
    ]);
    expect(list.todos[0]?.notes).toEqual(["  indented", "second"]);
  });

  it("rejects blank text and unknown tasks", () => {
    expect(run(plan, [{ op: "note", task: "Parser", text: " \n " }]).result.text).toContain(
      "ops[0].text must not be blank",
    );
    expect(run(plan, [{ op: "note", task: "Parser" }]).result.text).toContain(
      'ops[0].text is required for "note"',
    );
    expect(run(plan, [{ op: "note", text: "x" }]).result.text).toContain(
      'ops[0].task is required for "note"',
    );
    expect(run(plan, [{ op: "note", task: "Nope", text: "x" }]).result.text).toContain(
      'ops[0]: task "Nope" not found',
    );
  });
});

describe("pi todo_write: batches", () => {
  it("applies ops in order and normalizes only once, after the batch", () => {
    const { list, result } = run(emptyList(), [
      { op: "append", phase: "A", items: ["one", "two"] },
      { op: "start", task: "one" },
      { op: "start", task: "two" },
      { op: "done", task: "one" },
    ]);
    expect(result.isError).toBe(false);
    expect(statuses(list)).toEqual([
      ["one", "completed"],
      ["two", "in_progress"],
    ]);
  });

  it("accumulates errors while later ops still apply, and returns the mutated state", () => {
    const { list, result } = run(plan, [
      { op: "done", task: "Missing" },
      { op: "finish", task: "Parser" },
      { op: "done", task: "Parser" },
    ]);
    expect(result.isError).toBe(true);
    expect(result.details.errors).toEqual([
      'ops[0]: task "Missing" not found (tasks are matched by their exact content)',
      'ops[1].op must be one of init, start, done, drop, rm, append, note (got "finish")',
    ]);
    expect(result.text.startsWith("Errors:\n- ops[0]")).toBe(true);
    expect(statuses(list)).toEqual([
      ["Parser", "completed"],
      ["Tests", "in_progress"],
      ["Release", "pending"],
    ]);
  });

  it("returns the very same list when no op applied", () => {
    const input = deepFreeze(structuredClone(plan));
    const { list, result } = tool.handler(input, {
      ops: [{ op: "done", task: "Nope" }, { op: "start" }, "not an op"],
    });
    expect(list).toBe(input);
    expect(result.isError).toBe(true);
    expect(result.details.errors).toEqual([
      'ops[0]: task "Nope" not found (tasks are matched by their exact content)',
      'ops[1].task is required for "start"',
      'ops[2] must be an object (got "not an op")',
    ]);
  });

  it("names unknown fields and lists the allowed ones", () => {
    expect(run(plan, [{ op: "done", taks: "Parser" }]).result.text).toContain(
      'ops[0] has unknown field "taks" (allowed: op, list, task, phase, items, text)',
    );
  });

  it.each([
    [undefined, "todo_write: input must be an object (got nothing)"],
    [{}, "todo_write: ops is required"],
    [{ ops: [] }, "todo_write: ops must contain at least 1 item"],
    [{ ops: "done" }, 'todo_write: ops must be an array (got "done")'],
    [
      { ops: [{ op: "rm" }], force: true },
      'todo_write: input has unknown field "force" (allowed: ops)',
    ],
  ])("refuses the envelope %j without touching the list", (input, message) => {
    const frozen = deepFreeze(structuredClone(plan));
    const { list, result } = tool.handler(frozen, input);
    expect(list).toBe(frozen);
    expect(result).toEqual({ text: message, isError: true, details: { errors: [message] } });
  });
});

describe("pi todo_write: details and summary", () => {
  it("reports only tasks newly completed in this batch", () => {
    const start: TodoList = {
      ...plan,
      todos: [...plan.todos, { content: "Old", status: "completed", phase: "Ship" }],
    };
    const { result } = run(start, [{ op: "done" }]);
    expect(result.details.completedTasks).toEqual([
      { content: "Parser", phase: "Build" },
      { content: "Tests", phase: "Build" },
      { content: "Release", phase: "Ship" },
    ]);
  });

  it("gives the phase tree, loose tasks first", () => {
    const start: TodoList = {
      ...plan,
      phases: [...plan.phases, "Later"],
      todos: [{ content: "Loose", status: "pending" }, ...plan.todos],
    };
    const { result } = run(start, [{ op: "done", task: "Loose" }]);
    expect(result.details.phases).toEqual([
      { name: null, tasks: [{ content: "Loose", status: "completed" }] },
      { name: "Build", tasks: plan.todos.slice(0, 2) },
      { name: "Ship", tasks: plan.todos.slice(2) },
      { name: "Later", tasks: [] },
    ]);
  });

  it("summarizes what remains, the current phase and the active task's notes", () => {
    const start: TodoList = {
      phases: ["Build", "Ship", "Later"],
      nextId: 1,
      todos: [
        { content: "Parser", status: "completed", phase: "Build" },
        { content: "Tests", status: "in_progress", phase: "Build", notes: ["flaky on CI"] },
        { content: "Docs", status: "pending", phase: "Build", notes: ["a", "b"] },
        { content: "Deploy", status: "blocked", phase: "Ship", blockedReason: "no keys" },
      ],
    };
    const { result } = run(start, [{ op: "note", task: "Tests", text: "retry twice" }]);
    expect(result.text).toBe(
      [
        "Remaining: 3 of 4 tasks (1 in progress, 1 pending, 1 blocked).",
        "Current phase: Build (1 of 3 tasks completed).",
        "",
        "Build",
        "  [x] Parser",
        "  [/] Tests",
        "      > flaky on CI",
        "      > retry twice",
        "  [ ] Docs (2 notes)",
        "Ship",
        "  [!] Deploy (blocked: no keys)",
        "Later (empty)",
      ].join("\n"),
    );
  });

  it("says so when every task is closed", () => {
    const { result } = run(plan, [{ op: "done" }]);
    expect(result.text.split("\n")[0]).toBe("All 3 tasks are closed (3 completed).");
  });
});

describe("pi todo_write: properties", () => {
  const opArb = (names: string[]) => {
    const task =
      names.length > 0 ? fc.oneof(fc.constantFrom(...names), nonBlankText) : nonBlankText;
    const phase = fc.oneof(fc.constantFrom("Build", "Ship", "Todos"), nonBlankText);
    return fc.oneof(
      fc.record({
        op: fc.constant("init"),
        list: fc.array(
          fc.record({ phase, items: fc.array(nonBlankText, { minLength: 1, maxLength: 3 }) }),
          { maxLength: 3 },
        ),
      }),
      fc.record(
        { op: fc.constantFrom("start", "done", "drop", "rm"), task },
        { requiredKeys: ["op"] },
      ),
      fc.record({ op: fc.constantFrom("done", "drop", "rm"), phase }),
      fc.record({
        op: fc.constant("append"),
        phase,
        items: fc.array(fc.oneof(task, nonBlankText), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({ op: fc.constant("note"), task, text: trickyText }),
      fc.anything(),
    );
  };
  const batchArb = validList.chain((list) =>
    fc.tuple(
      fc.constant(list),
      fc.array(opArb(list.todos.map((t) => t.content)), { minLength: 1, maxLength: 6 }),
    ),
  );

  it("never throws, keeps the list valid and leaves at most one task in progress", () => {
    fc.assert(
      fc.property(batchArb, ([list, ops]) => {
        const input = deepFreeze(structuredClone(list));
        const { list: after, result } = tool.handler(input, { ops });
        expect(result.text).not.toContain("the call failed");
        expect(parseTodoList(after)).toEqual(after);
        const errors = result.details.errors as string[];
        expect(result.isError).toBe(errors.length > 0);
        if (after === input) return;
        const active = after.todos.filter((t) => t.status === "in_progress").length;
        const pending = after.todos.filter((t) => t.status === "pending").length;
        expect(active).toBe(active + pending > 0 ? 1 : 0);
      }),
      { numRuns: 400 },
    );
  });

  it("leaves the list untouched when every op is wrong", () => {
    const wrongOp = fc.oneof(
      fc.record({ op: fc.constantFrom("start", "note"), phase: nonBlankText }),
      fc.record({
        op: fc
          .string()
          .filter((s) => !["init", "start", "done", "drop", "rm", "append", "note"].includes(s)),
      }),
      fc.record({
        op: fc.constantFrom("done", "drop", "rm"),
        task: fc.constant("\u0000no such task"),
      }),
      fc.constantFrom(null, 1, "op", []),
    );
    fc.assert(
      fc.property(validList, fc.array(wrongOp, { minLength: 1, maxLength: 4 }), (list, ops) => {
        const input = deepFreeze(structuredClone(list));
        const { list: after, result } = tool.handler(input, { ops });
        expect(after).toBe(input);
        expect(result.isError).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
