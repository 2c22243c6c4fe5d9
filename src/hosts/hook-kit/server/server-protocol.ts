/**
 * What a hook hands the resident server and what it gets back. A question
 * carries everything a hook process would have had of its own: the command
 * line, the environment, the working folder and the umask (one line of JSON),
 * then the event as it came on stdin, as UTF-8 text. An answer is one JSON
 * document. Parsing checks every field: a question that does not parse is
 * never run, and an answer that does not parse is no answer.
 */

export interface ServerQuestion {
  host: string;
  args: string[];
  cwd: string;
  umask: number;
  env: Record<string, string>;
  /** The hook's stdin, whole. */
  input: string;
}

export type ServerAnswer =
  /** The server ran the hook: print these and exit with `code`. */
  | { kind: "done"; code: number; stdout: string; stderr: string }
  /** The server did not start on the event: the hook runs it in its own process. */
  | { kind: "self"; why: string };

/** A question's largest size: the largest hook input (16 MiB) with room for an environment. */
export const MAX_QUESTION_BYTES = 20 * 1024 * 1024;

const isStringRecord = (value: unknown): value is Record<string, string> =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((v) => typeof v === "string");

/** What a question's header holds: the environment may be `process.env` itself (unset names drop out). */
export type QuestionHeader = Omit<ServerQuestion, "input" | "env"> & {
  env: Record<string, string | undefined>;
};

/** The question's first line: its header as JSON (which never holds a raw newline) and a newline. */
export function questionHeader(question: QuestionHeader): string {
  return `${JSON.stringify({ v: 1, ...question })}\n`;
}

/** The question's bytes: its header line, then stdin as it came. */
export function formatQuestion(question: QuestionHeader, input: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(questionHeader(question)), input]);
}

/** The question in `data` (its text, or its bytes, read as UTF-8), or null when it is not one. */
export function parseQuestion(data: string | Buffer): ServerQuestion | null {
  const text = typeof data === "string" ? data : data.toString("utf8");
  const end = text.indexOf("\n");
  if (end < 0) return null;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text.slice(0, end)) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || value.v !== 1) return null;
  const { host, args, cwd, umask, env } = value;
  if (typeof host !== "string" || !/^[a-z][a-z0-9-]*$/.test(host)) return null;
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) return null;
  if (typeof cwd !== "string" || !cwd.startsWith("/")) return null;
  if (typeof umask !== "number" || !Number.isInteger(umask) || umask < 0 || umask > 0o777)
    return null;
  if (!isStringRecord(env)) return null;
  return { host, args: args as string[], cwd, umask, env, input: text.slice(end + 1) };
}

export function formatAnswer(answer: ServerAnswer): string {
  return JSON.stringify({ v: 1, ...answer });
}

export function parseAnswer(text: string): ServerAnswer | null {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || value.v !== 1) return null;
  if (value.kind === "self") {
    return typeof value.why === "string" ? { kind: "self", why: value.why } : null;
  }
  const { code, stdout, stderr } = value;
  if (value.kind !== "done" || typeof stdout !== "string" || typeof stderr !== "string")
    return null;
  if (typeof code !== "number" || !Number.isInteger(code) || code < 0 || code > 255) return null;
  return { kind: "done", code, stdout, stderr };
}
