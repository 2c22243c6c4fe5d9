import { z } from "zod";
import type { TodoList, TodoTool, ToolResult } from "../types.js";

export type Handled = { list: TodoList; result: ToolResult };

/** A successful call: the list to store and the text the model reads. */
export function succeed(list: TodoList, text: string, details: Record<string, unknown>): Handled {
  return { list, result: { text, isError: false, details } };
}

/** A refused call: the list comes back exactly as it went in, so nothing stored is lost. */
export function refuse(
  list: TodoList,
  text: string,
  details: Record<string, unknown> = {},
): Handled {
  return { list, result: { text, isError: true, details } };
}

/**
 * Longest text a todo tool accepts in one field (an item, a phase, a note, an
 * id), in characters. A todo is a line of work, not a document: anything
 * longer is refused with an error naming the field and this limit.
 */
export const MAX_TODO_TEXT = 2000;

/** A string with at least one non-space character, at most `MAX_TODO_TEXT` long; the schema also tells the model. */
export function nonBlank(description: string) {
  return z
    .string()
    .max(MAX_TODO_TEXT)
    .regex(/\S/, { error: "must not be blank" })
    .describe(description);
}

/**
 * The tool's JSON Schema for the model. The `$schema` marker is dropped: some
 * providers reject unknown top-level keywords in a tool's input schema.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _marker, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<
    string,
    unknown
  >;
  return rest;
}

export interface ToolSpec {
  name: string;
  description: string;
  schema: z.ZodType;
  readOnly: boolean;
  handle(list: TodoList, input: unknown): Handled;
}

/**
 * Builds a tool whose handler can never throw: handlers validate everything,
 * and this last guard turns any slip into a refused call that keeps the list.
 */
export function defineTool(spec: ToolSpec): TodoTool {
  const inputSchema = jsonSchemaOf(spec.schema);
  return {
    name: spec.name,
    description: spec.description,
    inputSchema,
    readOnly: spec.readOnly,
    handler(list: TodoList, input: unknown): Handled {
      try {
        return spec.handle(list, input);
      } catch (error) {
        const reason = error instanceof Error ? error.message : "unexpected failure";
        return refuse(list, `${spec.name}: the call failed and nothing was changed (${reason})`);
      }
    },
  };
}

/** A deep copy, so results never share mutable parts with the list they came from. */
export function cloneList(list: TodoList): TodoList {
  return structuredClone(list);
}
