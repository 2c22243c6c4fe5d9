import { z } from "zod";
import { QUOTE_LIMIT, quoteInput } from "../quote.js";

export { QUOTE_LIMIT, quoteInput };

type Issue = z.core.$ZodIssue;

/** Issues shown per error message; more than this only adds noise for the model. */
const MAX_ISSUES = 5;

/** `todos[2].status`; the root is called `input`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) {
      out += out === "" ? key : `.${key}`;
    } else out += `[${quoteInput(String(key))}]`;
  }
  if (out === "") return "input";
  return out.startsWith("[") ? `input${out}` : out;
}

/** A short, safe rendering of any value for an error message: `"done"`, `3`, `an object`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return quoteInput(value);
    case "number":
    case "boolean":
      return String(value);
    case "bigint":
      return `${value}n`;
    case "object":
      return "an object";
    default:
      return `a ${typeof value}`;
  }
}

function article(expected: string): string {
  switch (expected) {
    case "int":
      return "an integer";
    case "object":
    case "array":
      return `an ${expected}`;
    default:
      return `a ${expected}`;
  }
}

/** Field names an object schema accepts, found by walking `schema` along `path`. */
function allowedKeysAt(schema: z.ZodType | undefined, path: readonly PropertyKey[]): string[] {
  let node: unknown = schema;
  for (const key of [...path, null]) {
    while (node instanceof z.ZodOptional || node instanceof z.ZodNullable) node = node.unwrap();
    if (key === null) break;
    if (node instanceof z.ZodArray && typeof key === "number") node = node.element;
    else if (node instanceof z.ZodObject && typeof key === "string") node = node.shape[key];
    else return [];
  }
  return node instanceof z.ZodObject ? Object.keys(node.shape) : [];
}

function expectedTypes(issue: Issue): string[] | null {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return null;
  const types: string[] = [];
  for (const branch of issue.errors) {
    const first = branch[0];
    if (branch.length !== 1 || first?.code !== "invalid_type" || first.path.length > 0) {
      return null;
    }
    types.push(article(first.expected));
  }
  return types;
}

function describeIssue(issue: Issue, schema: z.ZodType | undefined): string {
  const where = formatPath(issue.path);
  const got = `(got ${describeValue(issue.input)})`;
  const absent = issue.input === undefined && issue.path.length > 0;
  if (absent && ["invalid_type", "invalid_value", "invalid_union"].includes(issue.code)) {
    return `${where} is required`;
  }
  switch (issue.code) {
    case "invalid_type":
      return `${where} must be ${article(issue.expected)} ${got}`;
    case "invalid_value":
      if (issue.values.length === 1) {
        return `${where} must be ${JSON.stringify(issue.values[0])} ${got}`;
      }
      return `${where} must be one of ${issue.values.map(String).join(", ")} ${got}`;
    case "too_small":
      if (issue.origin === "array") {
        const n = Number(issue.minimum);
        return `${where} must contain at least ${n} item${n === 1 ? "" : "s"}`;
      }
      if (issue.origin === "string") return `${where} must not be empty`;
      return `${where} must be at least ${issue.minimum} ${got}`;
    case "too_big":
      if (issue.origin === "array") return `${where} must contain at most ${issue.maximum} items`;
      if (issue.origin === "string") {
        return `${where} must be at most ${issue.maximum} characters long`;
      }
      return `${where} must be at most ${issue.maximum} ${got}`;
    case "unrecognized_keys": {
      const keys = issue.keys
        .slice(0, MAX_ISSUES)
        .map((k) => quoteInput(k))
        .join(", ");
      const extra =
        issue.keys.length > MAX_ISSUES ? ` and ${issue.keys.length - MAX_ISSUES} more` : "";
      const allowed = allowedKeysAt(schema, issue.path);
      const hint = allowed.length > 0 ? ` (allowed: ${allowed.join(", ")})` : "";
      return `${where} has unknown field${issue.keys.length === 1 ? "" : "s"} ${keys}${extra}${hint}`;
    }
    case "invalid_union": {
      const types = expectedTypes(issue);
      if (types) return `${where} must be ${types.join(" or ")} ${got}`;
      return `${where} is not valid ${got}`;
    }
    case "invalid_format":
    case "custom":
      return `${where} ${issue.message}`;
    default:
      return `${where} is not valid: ${issue.message}`;
  }
}

/** One sentence per bad field (the first issue of each), paths relative to `schema`. */
export function describeIssues(issues: readonly Issue[], schema?: z.ZodType): string[] {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const issue of issues) {
    const key = formatPath(issue.path);
    if (seen.has(key)) continue;
    seen.add(key);
    parts.push(describeIssue(issue, schema));
  }
  return parts;
}

/**
 * One message naming every bad field (first issue per field, at most five):
 * `todo_write: todos[2].status must be one of pending, ... (got "done")`.
 */
export function formatIssues(tool: string, issues: readonly Issue[], schema?: z.ZodType): string {
  const parts = describeIssues(issues, schema);
  const shown = parts.slice(0, MAX_ISSUES);
  const more = parts.length - shown.length;
  return `${tool}: ${shown.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Validates `input` against `schema` without ever throwing; tools that take no
 * arguments treat a missing input (`undefined` / `null`) as `{}`.
 */
export function parseInput<T>(
  tool: string,
  schema: z.ZodType<T>,
  input: unknown,
  options: { emptyIsObject?: boolean } = {},
): Parsed<T> {
  const value = options.emptyIsObject && (input === undefined || input === null) ? {} : input;
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, message: formatIssues(tool, parsed.error.issues, schema) };
}
