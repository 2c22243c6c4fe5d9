import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createToolset } from "../../core/dialects/index.js";
import { resolveScope } from "../../core/scope/index.js";
import type { Scope } from "../../core/types.js";
import { ContinuationRuntime, NO_SCOPE_NOTICE } from "../../runtime/index.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { createTodoMcpServer, type TodoMcpServerOptions } from "./server.js";

const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
});

async function connect(
  options: Omit<TodoMcpServerOptions, "runtime"> & { runtime?: ContinuationRuntime },
) {
  const store = new MemoryStore();
  const runtime = options.runtime ?? new ContinuationRuntime({ store, dialect: "parley" });
  const lines: string[] = [];
  const server = createTodoMcpServer({ log: (line) => lines.push(line), ...options, runtime });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(clientSide);
  opened.push(client, server);
  return { client, server, runtime, store: runtime.store, lines };
}

function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

describe("createTodoMcpServer", () => {
  it("lists the dialect's tools with their JSON Schema unchanged", async () => {
    const { client } = await connect({ dialect: "pi" });
    const { tools } = await client.listTools();
    const expected = createToolset({ dialect: "pi" });
    expect(tools.map((t) => t.name)).toEqual(expected.map((t) => t.name));
    for (const todoTool of expected) {
      const listed = tools.find((t) => t.name === todoTool.name)!;
      expect(listed.description).toBe(todoTool.description);
      const { $schema: _ignored, ...schema } = listed.inputSchema as Record<string, unknown>;
      expect(schema).toEqual(todoTool.inputSchema);
      expect(listed.annotations?.readOnlyHint).toBe(todoTool.readOnly);
    }
  });

  it("writes to a fixed scope and reads it back", async () => {
    const scope = resolveScope({ kind: "session", host: "claude-code", sessionId: "abc" })!;
    const { client, store } = await connect({ scope });
    const written = await client.callTool({
      name: "todo_write",
      arguments: { items: ["Write the parser", "Test it"] },
    });
    expect(written.isError).toBe(false);
    expect(text(written)).toContain("Write the parser");
    expect((await store.read(scope)).todos.todos.map((t) => t.content)).toEqual([
      "Write the parser",
      "Test it",
    ]);
    const listed = await client.callTool({ name: "todo_list", arguments: {} });
    expect(text(listed)).toContain("Test it");
  });

  it("lets the dialect judge bad input: a clear error, nothing lost, a reminder queued", async () => {
    const scope: Scope = { key: "tui", kind: "tui" };
    const { client, store } = await connect({ scope });
    await client.callTool({ name: "todo_write", arguments: { items: ["Keep me"] } });
    const before = await store.read(scope);
    const refused = await client.callTool({
      name: "todo_update",
      arguments: { id: "1", status: "finished" },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("status");
    const after = await store.read(scope);
    expect(after.todos).toEqual(before.todos);
    expect(after.state.reminders.map((r) => r.kind)).toEqual(["write-failed"]);
  });

  it("gives each client session its own list by default", async () => {
    const runtime = new ContinuationRuntime({ store: new MemoryStore(), dialect: "parley" });
    const a = await connect({ runtime });
    const b = await connect({ runtime });
    await a.client.callTool({ name: "todo_write", arguments: { items: ["only in a"] } });
    const fromB = await b.client.callTool({ name: "todo_list", arguments: {} });
    expect(text(fromB)).not.toContain("only in a");
    const scopes = await runtime.store.listScopes();
    expect(scopes).toHaveLength(1);
    expect(scopes[0]?.key).toMatch(/^session\/smcp\./);
  });

  it("routes calls by a scope function of the client session", async () => {
    const seen: string[] = [];
    const { client, store } = await connect({
      scope: (session) => {
        seen.push(session.clientName ?? "");
        return { key: "tui", kind: "tui" };
      },
    });
    await client.callTool({ name: "todo_write", arguments: { items: ["x"] } });
    expect(seen).toEqual(["test-client"]);
    expect((await store.read({ key: "tui", kind: "tui" })).todos.todos).toHaveLength(1);
  });

  it("answers a scopeless caller with the notice and writes nothing", async () => {
    const { client, store } = await connect({ scope: null });
    const result = await client.callTool({ name: "todo_write", arguments: { items: ["x"] } });
    expect(result.isError).toBe(false);
    expect(text(result)).toBe(NO_SCOPE_NOTICE);
    expect(await store.listScopes()).toEqual([]);
  });

  it("reports a store failure as a tool error and logs it", async () => {
    const store = new MemoryStore();
    await store.close();
    const runtime = new ContinuationRuntime({ store, dialect: "parley" });
    const { client, lines } = await connect({ runtime, scope: { key: "tui", kind: "tui" } });
    const result = await client.callTool({ name: "todo_list", arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("nothing was written");
    expect(lines.some((l) => l.includes("store error"))).toBe(true);
  });
});
