import type { Todo, TodoList } from "../../types.js";
import { minNextId } from "../ids.js";
import { COMMENT_LINE, DEFAULT_PHASE, HEADING, NEXT_ID, NO_PHASE_TEXT, NOTE } from "./format.js";
import { ITEM_START, type ItemLine, parseItemLine } from "./item.js";
import { unquote } from "./text.js";

export type MarkdownParse =
  | { ok: true; list: TodoList }
  | { ok: false; line: number; message: string };

type Section = { kind: "start" } | { kind: "none" } | { kind: "phase"; name: string };

class ParseError extends Error {}

function toTodo(item: ItemLine, phase: string | undefined): Todo {
  const todo: Todo = { content: item.content, status: item.status };
  if (item.id !== undefined) todo.id = item.id;
  if (item.priority !== undefined) todo.priority = item.priority;
  if (phase !== undefined) todo.phase = phase;
  if (item.blockedReason !== undefined) todo.blockedReason = item.blockedReason;
  if (item.activeForm !== undefined) todo.activeForm = item.activeForm;
  return todo;
}

/** Reads the markdown of a whole list; see `renderMarkdown` for the format. */
class Reader {
  readonly todos: Todo[] = [];
  readonly phases: string[] = [];
  readonly #declared = new Set<string>();
  #section: Section = { kind: "start" };
  #last: Todo | null = null;
  nextId: number | null = null;

  #declare(name: string): void {
    if (this.#declared.has(name)) return;
    this.#declared.add(name);
    this.phases.push(name);
  }

  #comment(inner: string): void {
    const text = inner.trim();
    const counter = NEXT_ID.exec(text);
    if (text === NO_PHASE_TEXT) {
      this.#section = { kind: "none" };
      this.#last = null;
    } else if (counter) {
      const value = Number(counter[1]);
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new ParseError("nextId must be a whole number of at least 1");
      }
      this.nextId = value;
    }
    // Any other comment is the editor's own remark and is left out.
  }

  #heading(raw: string): void {
    const text = raw.trim();
    if (text === "") throw new ParseError('a phase heading needs a name, as in "## Build"');
    const name = unquote(text);
    this.#declare(name);
    this.#section = { kind: "phase", name };
    this.#last = null;
  }

  #item(line: string): void {
    const item = parseItemLine(line);
    if (typeof item === "string") throw new ParseError(item);
    let phase = item.phase;
    if (phase === undefined) {
      if (this.#section.kind === "start") {
        this.#declare(DEFAULT_PHASE);
        phase = DEFAULT_PHASE;
      } else if (this.#section.kind === "phase") phase = this.#section.name;
    }
    const todo = toTodo(item, phase);
    this.todos.push(todo);
    this.#last = todo;
  }

  #note(line: string): void {
    if (this.#last === null) throw new ParseError('a note ("> ...") must follow an item');
    const note = unquote(line.replace(/^\s*>\s?/, ""));
    this.#last.notes = [...(this.#last.notes ?? []), note];
  }

  read(line: string): void {
    if (line.trim() === "") return;
    const comment = COMMENT_LINE.exec(line);
    const heading = HEADING.exec(line);
    if (comment) this.#comment(comment[1] ?? "");
    else if (heading) this.#heading(heading[1] ?? "");
    else if (/^\s{0,3}#/.test(line)) {
      throw new ParseError('phases are "## " headings; other heading levels are not used');
    } else if (ITEM_START.test(line)) this.#item(line);
    else if (NOTE.test(line)) this.#note(line);
    else if (/^\s*[-*+]\s/.test(line)) {
      throw new ParseError('an item needs a checkbox, as in "- [ ] task"');
    } else {
      throw new ParseError(
        'expected a "## Phase" heading, a "- [ ] task" item or a "> note" line under an item',
      );
    }
  }
}

/**
 * Reads markdown written by `renderMarkdown` or by hand. Never throws: a
 * problem is reported with its 1-based line number, and a document that reads
 * always yields a valid list (ids in use are never handed out again).
 */
export function parseMarkdown(text: string): MarkdownParse {
  if (typeof text !== "string") return { ok: false, line: 1, message: "expected markdown text" };
  const reader = new Reader();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    try {
      reader.read((lines[i] as string).trimEnd());
    } catch (error) {
      const message = error instanceof ParseError ? error.message : "this line could not be read";
      return { ok: false, line: i + 1, message };
    }
  }
  const list: TodoList = {
    todos: reader.todos,
    phases: reader.phases,
    nextId: Math.max(reader.nextId ?? 1, minNextId(reader.todos)),
  };
  return { ok: true, list };
}
