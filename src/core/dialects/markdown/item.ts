import type { Todo, TodoPriority, TodoStatus } from "../../types.js";
import { STATUS_MARK } from "../display.js";
import { formatMeta, type ItemMeta, parseMeta } from "./meta.js";
import { isPlain, quote, unquote } from "./text.js";

/** Checkbox marks read back; `>` and `~` are accepted spellings from seed 004. */
const MARKS: Record<string, TodoStatus> = {
  " ": "pending",
  "/": "in_progress",
  ">": "in_progress",
  x: "completed",
  X: "completed",
  "-": "cancelled",
  "~": "cancelled",
  "!": "blocked",
};

const PRIORITIES: readonly string[] = ["high", "medium", "low"];

/** An item line as read: the todo without notes, plus a phase named in its comment. */
export interface ItemLine {
  status: TodoStatus;
  content: string;
  id?: string;
  priority?: TodoPriority;
  activeForm?: string;
  blockedReason?: string;
  /** A phase the item's comment names, overriding the heading it sits under. */
  phase?: string;
}

/** A line that starts like a list item: `- [`, `* [` or `+ [`. */
export const ITEM_START = /^\s*[-*+]\s+\[/;
const ITEM = /^\s*[-*+]\s+\[(.)\]\s*(.*)$/;
const BLOCKED_OPEN = "(blocked:";

/** Splits a trailing `<!-- ... -->` comment off the item text. */
function splitMeta(rest: string): { text: string; meta: ItemMeta } | string {
  if (!rest.endsWith("-->")) return { text: rest, meta: {} };
  const start = rest.lastIndexOf("<!--");
  if (start < 0) return { text: rest, meta: {} };
  const meta = parseMeta(rest.slice(start + 4, Math.max(start + 4, rest.length - 3)));
  if (typeof meta === "string") return meta;
  return { text: rest.slice(0, start).trimEnd(), meta };
}

/** Reads one item line (already known to start like an item); a string is the error. */
export function parseItemLine(line: string): ItemLine | string {
  const match = ITEM.exec(line.trimEnd());
  if (!match) return 'an item needs a checkbox with one mark, as in "- [ ] task"';
  const [, mark = "", rest = ""] = match;
  const status = MARKS[mark];
  if (status === undefined) {
    return `unknown checkbox mark ${JSON.stringify(mark)}; use [ ] pending, [/] in progress, [x] completed, [-] cancelled or [!] blocked`;
  }
  const split = splitMeta(rest);
  if (typeof split === "string") return split;
  let { text } = split;
  const { meta } = split;
  const item: ItemLine = { status, content: "" };
  if (status === "blocked" && meta.blockedReason === undefined) {
    const open = text.lastIndexOf(BLOCKED_OPEN);
    if (open < 0 || !text.endsWith(")")) {
      return 'a blocked item needs a reason, as in "- [!] task (blocked: reason)"';
    }
    item.blockedReason = text.slice(open + BLOCKED_OPEN.length, -1).trim();
    text = text.slice(0, open);
  } else if (meta.blockedReason !== undefined) {
    item.blockedReason = meta.blockedReason;
  }
  if (status === "blocked" && (item.blockedReason ?? "").trim() === "") {
    return "the reason of a blocked item must not be empty";
  }
  item.content = unquote(text.trim());
  if (item.content.trim() === "") return "an item needs some text after its checkbox";
  if (meta.priority !== undefined) {
    if (!PRIORITIES.includes(meta.priority)) {
      return `priority must be one of high, medium, low (got ${JSON.stringify(meta.priority)})`;
    }
    item.priority = meta.priority as TodoPriority;
  }
  if (meta.id !== undefined) item.id = meta.id;
  if (meta.activeForm !== undefined) item.activeForm = meta.activeForm;
  if (meta.phase !== undefined) item.phase = meta.phase;
  return item;
}

const LINE_FIELDS = [
  "status",
  "content",
  "id",
  "priority",
  "activeForm",
  "blockedReason",
  "phase",
] as const;

function sameLine(a: ItemLine, b: ItemLine): boolean {
  return LINE_FIELDS.every((field) => a[field] === b[field]);
}

function expectedLine(todo: Todo, phase: string | undefined): ItemLine {
  const line: ItemLine = { status: todo.status, content: todo.content };
  for (const field of ["id", "priority", "activeForm", "blockedReason"] as const) {
    if (todo[field] !== undefined) Object.assign(line, { [field]: todo[field] });
  }
  if (phase !== undefined) line.phase = phase;
  return line;
}

/**
 * Writes one item line. The readable form comes first (`- [!] task (blocked:
 * reason) <!-- id=3 -->`); when it would not read back exactly, the text is
 * quoted and every field goes into the comment, which always reads back.
 */
export function renderItemLine(todo: Todo, phaseOverride?: string): string {
  const mark = `- [${STATUS_MARK[todo.status]}]`;
  const blocked = todo.status === "blocked";
  const meta: ItemMeta = {
    id: todo.id,
    priority: todo.priority,
    activeForm: todo.activeForm,
    blockedReason: blocked ? undefined : todo.blockedReason,
    phase: phaseOverride,
  };
  const reason = todo.blockedReason ?? "";
  if (isPlain(todo.content) && (!blocked || isPlain(reason))) {
    const comment = formatMeta(meta);
    const suffix = blocked ? ` ${BLOCKED_OPEN} ${reason})` : "";
    const line = `${mark} ${todo.content}${suffix}${comment === "" ? "" : ` ${comment}`}`;
    const read = parseItemLine(line);
    if (typeof read !== "string" && sameLine(read, expectedLine(todo, phaseOverride))) return line;
  }
  const comment = formatMeta({ ...meta, blockedReason: todo.blockedReason });
  return `${mark} ${quote(todo.content)}${comment === "" ? "" : ` ${comment}`}`;
}
