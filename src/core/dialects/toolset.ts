import type { DialectName, Origin, TodoTool } from "../types.js";
import { CLOSE_INSTRUCTIONS } from "./close.js";
import { parleyTools } from "./parley.js";
import { piTools } from "./pi.js";
import { typeclawTools } from "./typeclaw.js";

export { closeInstruction } from "./close.js";

/** One tool vocabulary the model can be given. */
export interface Dialect {
  name: DialectName;
  description: string;
  /** Fresh tool objects for this dialect. */
  tools(): TodoTool[];
  /**
   * How the model closes an item in this dialect: one sentence a nudge can
   * stand on its own line or after another sentence.
   */
  closeInstruction: string;
}

export const DIALECTS: Record<DialectName, Dialect> = {
  typeclaw: {
    name: "typeclaw",
    description: "todo_write (full replace), todo_read, todo_clear (seed 000)",
    tools: typeclawTools,
    closeInstruction: CLOSE_INSTRUCTIONS.typeclaw,
  },
  parley: {
    name: "parley",
    description:
      "todo_write(items) -> ids, todo_list, todo_update(id, done|blocked, reason) (seed 002)",
    tools: parleyTools,
    closeInstruction: CLOSE_INSTRUCTIONS.parley,
  },
  pi: {
    name: "pi",
    description: "todo_write(ops) over phases and tasks, with notes (seed 004)",
    tools: piTools,
    closeInstruction: CLOSE_INSTRUCTIONS.pi,
  },
};

export function isDialectName(value: unknown): value is DialectName {
  return typeof value === "string" && Object.hasOwn(DIALECTS, value);
}

export interface ToolsetOptions {
  dialect: DialectName;
  /** Who is asking; subagents get no todo tools, their parent owns the list (seed 004). */
  origin?: Origin;
  /** `false` turns the tools off, like seed 004's `todo.enabled`; default true. */
  enabled?: boolean;
}

/** The todo tools to give a model: none for subagents or when disabled. */
export function createToolset(options: ToolsetOptions): TodoTool[] {
  if (options.enabled === false) return [];
  if (options.origin?.kind === "subagent") return [];
  const dialect = DIALECTS[options.dialect];
  if (dialect === undefined) {
    throw new Error(
      `createToolset: dialect must be one of ${Object.keys(DIALECTS).join(", ")} (got ${JSON.stringify(options.dialect)})`,
    );
  }
  return dialect.tools();
}

export function findTool(tools: readonly TodoTool[], name: string): TodoTool | undefined {
  return tools.find((tool) => tool.name === name);
}
