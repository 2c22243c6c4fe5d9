import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { createToolset } from "../../core/dialects/index.js";
import { describeScope, resolveScope } from "../../core/scope/index.js";
import type { DialectName, Scope, TodoTool } from "../../core/types.js";
import type { ContinuationRuntime } from "../../runtime/index.js";

/** What the server knows about the client session a tool call belongs to. */
export interface McpSession {
  /**
   * The transport's session id when it has one (Streamable HTTP); on stdio,
   * where one process serves one client, an id made when the server starts.
   */
  sessionId: string;
  /** The client's self-reported name, once it has initialized. */
  clientName?: string;
}

/**
 * How a tool call finds its list: a fixed scope (`--scope`, `--session`), a
 * function of the client session, or, by default, one list per client session
 * under the `mcp` host.
 */
export type McpScopeChoice = Scope | null | ((session: McpSession) => Scope | null);

export interface TodoMcpServerOptions {
  runtime: ContinuationRuntime;
  /** Which dialect's tools to expose; default the runtime's. */
  dialect?: DialectName;
  scope?: McpScopeChoice;
  /** Server name reported to clients. Default "todo-continuation". */
  name?: string;
  /** Server version reported to clients. Default "0.0.0". */
  version?: string;
  /**
   * Diagnostics, one line each. On stdio, stdout carries the protocol, so the
   * default writes to stderr and nothing else ever may.
   */
  log?: (line: string) => void;
}

/** The default: one list per client session, keyed under the `mcp` host. */
export function scopeForSession(session: McpSession): Scope | null {
  return resolveScope({ kind: "session", host: "mcp", sessionId: session.sessionId });
}

/**
 * A schema that lists the dialect's JSON Schema unchanged to clients but lets
 * every argument through to the dialect handler, which validates inside the
 * store's transaction with messages naming the field. A generic validator in
 * front would answer first, with vaguer messages and without queuing the
 * failed-write reminder.
 */
function passThroughSchema(todoTool: TodoTool) {
  return z.looseObject({}).meta({ ...todoTool.inputSchema });
}

function toCallResult(text: string, isError: boolean): CallToolResult {
  return { content: [{ type: "text", text }], isError };
}

/**
 * An MCP server (official SDK) exposing one dialect's todo tools over the
 * runtime's store. Each call resolves its scope, then runs the tool through
 * `runtime.callTool`: atomic, and a bad call never loses the stored list.
 * Connect it to any transport; `runMcpServer` serves it on stdio.
 */
export function createTodoMcpServer(options: TodoMcpServerOptions): McpServer {
  const { runtime } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const server = new McpServer({
    name: options.name ?? "todo-continuation",
    version: options.version ?? "0.0.0",
  });
  const connectionId = randomUUID();
  const choice = options.scope === undefined ? scopeForSession : options.scope;

  const scopeFor = (transportSessionId: string | undefined): Scope | null => {
    if (typeof choice !== "function") return choice;
    const clientName = server.server.getClientVersion()?.name;
    return choice({
      sessionId: transportSessionId ?? connectionId,
      ...(clientName !== undefined ? { clientName } : {}),
    });
  };

  for (const todoTool of createToolset({ dialect: options.dialect ?? runtime.dialect })) {
    server.registerTool(
      todoTool.name,
      {
        description: todoTool.description,
        inputSchema: passThroughSchema(todoTool),
        annotations: { readOnlyHint: todoTool.readOnly, destructiveHint: !todoTool.readOnly },
      },
      async (args, extra) => {
        const scope = scopeFor(extra.sessionId);
        try {
          const result = await runtime.callTool(scope, todoTool, args);
          const where = scope ? describeScope(scope) : "no scope";
          log(`${todoTool.name} (${where}): ${result.isError ? "refused" : "ok"}`);
          return toCallResult(result.text, result.isError);
        } catch (error) {
          // A store failure: report it to the client and the log; nothing was written.
          const message = error instanceof Error ? error.message : String(error);
          log(`${todoTool.name}: store error: ${message}`);
          return toCallResult(`${todoTool.name} failed and nothing was written: ${message}`, true);
        }
      },
    );
  }
  return server;
}
