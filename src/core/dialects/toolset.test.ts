import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseTodoList } from "../todo/parse.js";
import type { DialectName, TodoList } from "../types.js";
import { deepFreeze, flatList, trickyText, validList } from "./test-support/arbitraries.js";
import { closeInstruction, createToolset, DIALECTS, findTool, isDialectName } from "./toolset.js";

const NAMES: DialectName[] = ["typeclaw", "parley", "pi"];

describe("createToolset", () => {
  it.each([
    ["typeclaw", ["todo_write", "todo_read", "todo_clear"]],
    ["parley", ["todo_write", "todo_list", "todo_update"]],
    ["pi", ["todo_write"]],
  ] as const)("gives the %s tools", (dialect, names) => {
    expect(createToolset({ dialect }).map((t) => t.name)).toEqual(names);
  });

  it("marks only the reading tools read-only", () => {
    const readOnly = NAMES.flatMap((dialect) =>
      createToolset({ dialect })
        .filter((t) => t.readOnly)
        .map((t) => `${dialect}.${t.name}`),
    );
    expect(readOnly).toEqual(["typeclaw.todo_read", "parley.todo_list"]);
  });

  it("gives subagents no todo tools: their parent owns the list", () => {
    for (const dialect of NAMES) {
      expect(createToolset({ dialect, origin: { kind: "subagent" } })).toEqual([]);
      expect(createToolset({ dialect, origin: { kind: "tui" } }).length).toBeGreaterThan(0);
    }
  });

  it("gives no tools when disabled", () => {
    for (const dialect of NAMES) expect(createToolset({ dialect, enabled: false })).toEqual([]);
    expect(createToolset({ dialect: "pi", enabled: true })).toHaveLength(1);
  });

  it("names the valid dialects when given an unknown one", () => {
    expect(() => createToolset({ dialect: "nope" as DialectName })).toThrow(
      'createToolset: dialect must be one of typeclaw, parley, pi (got "nope")',
    );
  });

  it("returns fresh tool objects each time", () => {
    const a = createToolset({ dialect: "pi" });
    const b = createToolset({ dialect: "pi" });
    expect(a[0]).not.toBe(b[0]);
  });

  it("publishes an object JSON Schema for every tool", () => {
    for (const dialect of NAMES) {
      for (const tool of createToolset({ dialect })) {
        expect(tool.inputSchema.type).toBe("object");
        expect(tool.inputSchema.$schema).toBeUndefined();
        expect(tool.description.length).toBeGreaterThan(20);
      }
    }
    const piWrite = findTool(createToolset({ dialect: "pi" }), "todo_write");
    expect(piWrite?.inputSchema).toMatchObject({
      required: ["ops"],
      properties: { ops: { type: "array", minItems: 1 } },
    });
    const update = findTool(createToolset({ dialect: "parley" }), "todo_update");
    expect(update?.inputSchema).toMatchObject({
      required: ["id", "status"],
      properties: { status: { enum: ["done", "blocked"] } },
    });
  });
});

describe("findTool, DIALECTS, closeInstruction", () => {
  it("finds a tool by name", () => {
    const tools = createToolset({ dialect: "parley" });
    expect(findTool(tools, "todo_update")?.name).toBe("todo_update");
    expect(findTool(tools, "todo_read")).toBeUndefined();
  });

  it("describes every dialect", () => {
    expect(Object.keys(DIALECTS)).toEqual(NAMES);
    for (const name of NAMES) expect(DIALECTS[name].name).toBe(name);
    expect(isDialectName("pi")).toBe(true);
    expect(isDialectName("toString")).toBe(false);
  });

  it("tells the model how to close an item in its own dialect, as a sentence", () => {
    for (const name of NAMES) expect(closeInstruction(name)).toMatch(/^[A-Z].*\.$/);
    expect(closeInstruction("parley")).toContain('todo_update(id, "done")');
    expect(closeInstruction("typeclaw")).toContain("todo_write");
    expect(closeInstruction("pi")).toContain('op: "done"');
  });
});

describe("every handler", () => {
  const everyTool = NAMES.flatMap((dialect) =>
    createToolset({ dialect }).map((tool) => ({ dialect, tool })),
  );

  /** Inputs with the right outline and wrong insides. */
  const shapedButWrong = fc.oneof(
    fc.record({
      todos: fc.array(
        fc.record(
          {
            content: fc.anything(),
            status: fc.oneof(fc.constantFrom("pending", "blocked", "done"), fc.anything()),
          },
          { requiredKeys: [] },
        ),
      ),
    }),
    fc.record({ items: fc.oneof(fc.array(fc.oneof(trickyText, fc.anything())), fc.anything()) }),
    fc.record(
      {
        id: fc.oneof(trickyText, fc.integer(), fc.anything()),
        status: fc.oneof(fc.constantFrom("done", "blocked", "open"), fc.anything()),
        reason: fc.anything(),
      },
      { requiredKeys: [] },
    ),
    fc.record({
      ops: fc.oneof(
        fc.array(
          fc.record(
            {
              op: fc.oneof(
                fc.constantFrom("init", "start", "done", "rm", "append", "note"),
                trickyText,
              ),
              task: fc.anything(),
              phase: fc.anything(),
              items: fc.anything(),
              list: fc.anything(),
              text: fc.anything(),
            },
            { requiredKeys: ["op"] },
          ),
        ),
        fc.anything(),
      ),
    }),
  );

  const inputArb = fc.oneof(fc.anything(), shapedButWrong);

  it("never throws, never mutates its input, and keeps the list valid", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...everyTool),
        fc.oneof(validList, flatList),
        inputArb,
        ({ tool }, list, input) => {
          const frozen = deepFreeze(structuredClone(list));
          const { list: after, result } = tool.handler(frozen, input);
          expect(typeof result.text).toBe("string");
          expect(result.text).not.toContain("the call failed"); // the last-resort guard never fires
          expect(parseTodoList(after)).toEqual(after);
          if (tool.readOnly) expect(after).toBe(frozen);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("returns the same list when it refuses the input", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...everyTool),
        validList,
        inputArb,
        ({ dialect, tool }, list, input) => {
          const frozen: TodoList = deepFreeze(structuredClone(list));
          const { list: after, result } = tool.handler(frozen, input);
          // pi's documented partial apply: an error result may carry the ops that did apply.
          const partial =
            dialect === "pi" && (result.details.errors as string[]).length > 0 && after !== frozen;
          if (result.isError && !partial) expect(after).toBe(frozen);
          if (!result.isError && tool.readOnly) expect(after).toBe(frozen);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("survives hostile objects without throwing", () => {
    const hostile = [
      Object.create(null),
      { __proto__: { todos: [] } },
      { toString: 1, valueOf: 2 },
      new Proxy(
        {},
        {
          get: () => {
            throw new Error("trap");
          },
          ownKeys: () => {
            throw new Error("trap");
          },
        },
      ),
      Object.defineProperty({}, "todos", {
        enumerable: true,
        get: () => {
          throw new Error("getter");
        },
      }),
      [1, 2, 3],
      () => 1,
      Symbol("s"),
      10n,
    ];
    for (const { tool } of everyTool) {
      for (const input of hostile) {
        const list = deepFreeze({ todos: [], phases: [], nextId: 1 });
        expect(() => tool.handler(list, input)).not.toThrow();
        const { list: after, result } = tool.handler(list, input);
        // An empty object is a fine input for the tools that take none.
        if (result.isError) expect(after).toBe(list);
        else expect(Object.keys(input as object)).toEqual([]);
      }
    }
  });
});
