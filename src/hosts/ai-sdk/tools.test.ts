import type { ToolExecutionOptions } from "ai";
import { describe, expect, it } from "vitest";
import { createToolset } from "../../core/dialects/index.js";
import type { Scope } from "../../core/types.js";
import { ContinuationRuntime, NO_SCOPE_NOTICE } from "../../runtime/index.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { createTodoTools, TodoToolError } from "./tools.js";

const scope: Scope = { key: "session/sai-sdk.stools", kind: "session" };
const callOptions: ToolExecutionOptions = { toolCallId: "call-1", messages: [] };

function runtimeFor(dialect: "typeclaw" | "parley" | "pi") {
  const store = new MemoryStore();
  return { store, runtime: new ContinuationRuntime({ store, dialect }) };
}

async function run(tool: unknown, input: unknown) {
  const execute = (
    tool as { execute: (input: unknown, options: ToolExecutionOptions) => Promise<unknown> }
  ).execute;
  return execute(input, callOptions);
}

describe("createTodoTools", () => {
  it.each(["typeclaw", "parley", "pi"] as const)(
    "exposes the %s dialect's tools with their own JSON Schema",
    (dialect) => {
      const { runtime } = runtimeFor(dialect);
      const tools = createTodoTools({ runtime, scope });
      const expected = createToolset({ dialect });
      expect(Object.keys(tools)).toEqual(expected.map((t) => t.name));
      for (const todoTool of expected) {
        const sdkTool = tools[todoTool.name] as {
          description?: string;
          inputSchema: { jsonSchema: unknown };
        };
        expect(sdkTool.description).toBe(todoTool.description);
        expect(sdkTool.inputSchema.jsonSchema).toEqual(todoTool.inputSchema);
      }
    },
  );

  it("defaults to the runtime's dialect and accepts another", () => {
    const { runtime } = runtimeFor("parley");
    expect(Object.keys(createTodoTools({ runtime, scope }))).toContain("todo_update");
    expect(Object.keys(createTodoTools({ runtime, scope, dialect: "typeclaw" }))).toContain(
      "todo_clear",
    );
  });

  it("writes through the store and reads back what it wrote", async () => {
    const { store, runtime } = runtimeFor("parley");
    const tools = createTodoTools({ runtime, scope });
    const written = await run(tools.todo_write, { items: ["Write the parser", "Test it"] });
    expect(String(written)).toContain("Write the parser");
    expect((await store.read(scope)).todos.todos.map((t) => t.content)).toEqual([
      "Write the parser",
      "Test it",
    ]);
    expect(String(await run(tools.todo_list, {}))).toContain("Test it");
  });

  it("turns a refused call into a TodoToolError and loses nothing stored", async () => {
    const { store, runtime } = runtimeFor("parley");
    const tools = createTodoTools({ runtime, scope });
    await run(tools.todo_write, { items: ["Keep me"] });
    const before = await store.read(scope);
    const error = await run(tools.todo_update, { id: "999", status: "done" }).catch((e) => e);
    expect(error).toBeInstanceOf(TodoToolError);
    expect((error as TodoToolError).result.isError).toBe(true);
    expect((error as Error).message).toContain("999");
    const after = await store.read(scope);
    expect(after.todos).toEqual(before.todos);
    expect(after.state.reminders.map((r) => r.kind)).toEqual(["write-failed"]);
  });

  it("answers with a notice and writes nothing when there is no scope", async () => {
    const { store, runtime } = runtimeFor("typeclaw");
    const tools = createTodoTools({ runtime, scope: null });
    const text = await run(tools.todo_write, { todos: [{ content: "x", status: "pending" }] });
    expect(text).toBe(NO_SCOPE_NOTICE);
    expect(await store.listScopes()).toEqual([]);
  });
});
