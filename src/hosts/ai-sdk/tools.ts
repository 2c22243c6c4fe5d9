import { type JSONSchema7, jsonSchema, type ToolSet, tool } from "ai";
import { createToolset } from "../../core/dialects/index.js";
import type { DialectName, Scope, TodoTool, ToolResult } from "../../core/types.js";
import type { ContinuationRuntime } from "../../runtime/index.js";

/**
 * Thrown by a todo tool's `execute` when the call was refused (bad input, an
 * unknown id). The AI SDK turns it into a `tool-error` the model reads, so the
 * model sees exactly the dialect's message; the stored list is unchanged.
 */
export class TodoToolError extends Error {
  readonly result: ToolResult;
  constructor(result: ToolResult) {
    super(result.text);
    this.name = "TodoToolError";
    this.result = result;
  }
}

export interface TodoToolsOptions {
  runtime: ContinuationRuntime;
  /**
   * The list these tools write. `null` (a subagent, a system task) makes every
   * call a no-op that answers with a notice: such callers own no list.
   */
  scope: Scope | null;
  /** Which dialect's tools; default the runtime's, which is the one its nudge names. */
  dialect?: DialectName;
}

/** One dialect tool as an AI SDK tool bound to the runtime and scope. */
export function toAiSdkTool(runtime: ContinuationRuntime, scope: Scope | null, todoTool: TodoTool) {
  return tool({
    description: todoTool.description,
    // No `validate`: the dialect handler validates and names the bad field itself,
    // inside the store's transaction, so a refused call never touches the list.
    inputSchema: jsonSchema<unknown>(todoTool.inputSchema as JSONSchema7),
    execute: async (input: unknown) => {
      const result = await runtime.callTool(scope, todoTool, input);
      if (result.isError) throw new TodoToolError(result);
      return result.text;
    },
  });
}

/**
 * The dialect's todo tools as an AI SDK `ToolSet`, ready to spread into the
 * `tools` of `generateText`, `streamText` or an agent. Every call goes through
 * `runtime.callTool`: atomic against the store, and a failed write queues a
 * reminder the wake loop hands to the model on its next turn.
 */
export function createTodoTools(options: TodoToolsOptions): ToolSet {
  const { runtime, scope } = options;
  const tools: ToolSet = {};
  for (const todoTool of createToolset({ dialect: options.dialect ?? runtime.dialect })) {
    tools[todoTool.name] = toAiSdkTool(runtime, scope, todoTool);
  }
  return tools;
}
