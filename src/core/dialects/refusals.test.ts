import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyList } from "../todo/model.js";
import type { TodoList, TodoTool } from "../types.js";
import { QUOTE_LIMIT, quoteInput } from "./issues.js";
import { parleyTools } from "./parley.js";
import { piTools } from "./pi.js";
import { MAX_TODO_TEXT } from "./tool.js";
import { findTool } from "./toolset.js";
import { typeclawTools } from "./typeclaw.js";

/** A refusal quotes at most a short prefix of what it was sent, plus the sentence around it. */
const MAX_REFUSAL = 600;

const tool = (tools: TodoTool[], name: string) => findTool(tools, name) as TodoTool;
const big = (n: number) => "x".repeat(n);

function refused(t: TodoTool, list: TodoList, input: unknown): string {
  const { list: after, result } = t.handler(list, input);
  expect(result.isError).toBe(true);
  expect(after).toEqual(list);
  return result.text;
}

const parleyWrite = tool(parleyTools(), "todo_write");
const parleyUpdate = tool(parleyTools(), "todo_update");
const typeclawWrite = tool(typeclawTools(), "todo_write");
const piWrite = tool(piTools(), "todo_write");
const seeded = parleyWrite.handler(emptyList(), { items: ["A", "B"] }).list;

describe("refusals quote a short prefix of their input", () => {
  it("cuts a quoted text at QUOTE_LIMIT characters", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), (text) => {
        const quoted = JSON.parse(quoteInput(text)) as string;
        expect(Array.from(quoted).length).toBeLessThanOrEqual(QUOTE_LIMIT + 1);
        if (Array.from(text).length <= QUOTE_LIMIT) expect(quoted).toBe(text);
        else expect(quoted.endsWith("…")).toBe(true);
      }),
    );
  });

  it.each([
    [
      "parley todo_update, unknown id",
      () => refused(parleyUpdate, seeded, { id: big(1500), status: "done" }),
    ],
    [
      "parley todo_update, a 1 MB id",
      () => refused(parleyUpdate, seeded, { id: big(1 << 20), status: "done" }),
    ],
    [
      "an unknown field name",
      () => refused(parleyWrite, emptyList(), { items: ["A"], [big(1 << 20)]: 1 }),
    ],
    [
      "a 1 MB bad value",
      () =>
        refused(typeclawWrite, emptyList(), { todos: [{ content: "A", status: big(1 << 20) }] }),
    ],
    [
      "typeclaw, a duplicate long id",
      () =>
        refused(typeclawWrite, emptyList(), {
          todos: [
            { content: "A", status: "pending", id: big(1500) },
            { content: "B", status: "pending", id: big(1500) },
          ],
        }),
    ],
    [
      "pi ops, task not found",
      () => refused(piWrite, seeded, { ops: [{ op: "done", task: big(1500) }] }),
    ],
  ])("%s", (_name, run) => {
    const text = run();
    expect(text.length).toBeLessThan(MAX_REFUSAL);
    expect(text).toMatch(/x…|at most 2000 characters long/);
  });
});

describe("todo text has a maximum length", () => {
  it("accepts MAX_TODO_TEXT characters and refuses one more, naming the field and the limit", () => {
    expect(parleyWrite.handler(emptyList(), { items: [big(MAX_TODO_TEXT)] }).result.isError).toBe(
      false,
    );
    const text = refused(parleyWrite, emptyList(), { items: ["A", big(MAX_TODO_TEXT + 1)] });
    expect(text).toBe(`todo_write: items[1] must be at most ${MAX_TODO_TEXT} characters long`);
    const pi = refused(piWrite, emptyList(), { ops: [{ op: "append", items: [big(1 << 20)] }] });
    expect(pi).toContain(`at most ${MAX_TODO_TEXT} characters long`);
    expect(pi.length).toBeLessThan(MAX_REFUSAL);
  });
});
