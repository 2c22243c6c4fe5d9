import type { Todo, TodoList } from "../../types.js";
import { minNextId } from "../ids.js";
import { NO_PHASE_LINE, nextIdLine } from "./format.js";
import { renderItemLine } from "./item.js";
import { isPlain, isPlainNote, quote } from "./text.js";

type Section = { kind: "start" } | { kind: "none" } | { kind: "phase"; name: string };

function noteLine(note: string): string {
  if (note === "") return "  >";
  return `  > ${isPlainNote(note) ? note : quote(note)}`;
}

function itemLines(todo: Todo, phaseOverride?: string): string[] {
  return [renderItemLine(todo, phaseOverride), ...(todo.notes ?? []).map(noteLine)];
}

/**
 * Writes a list as markdown that `parseMarkdown` reads back to an equal list.
 * Todos keep their order: a `## Phase` heading opens wherever the phase
 * changes (repeating a heading continues its phase), empty phases get a
 * heading of their own, and tasks without a phase follow a `<!-- no phase -->`
 * line. Headings first appear in the list's phase order, which is how that
 * order is read back.
 */
export function renderMarkdown(list: TodoList): string {
  const out: string[] = [];
  const gap = () => {
    if (out.length > 0) out.push("");
  };
  if (list.nextId !== minNextId(list.todos)) out.push(nextIdLine(list.nextId));
  const declared = list.phases;
  const position = new Map(declared.map((name, i) => [name, i]));
  let opened = 0;
  const heading = (name: string) => {
    gap();
    out.push(`## ${isPlain(name) ? name : quote(name)}`);
  };
  /** Opens `declared[index]`, first opening (empty) every declared phase before it. */
  const open = (index: number) => {
    if (index < opened) {
      heading(declared[index] as string);
      return;
    }
    for (; opened <= index; opened++) heading(declared[opened] as string);
  };
  let section: Section = { kind: "start" };
  for (const todo of list.todos) {
    const phase = todo.phase;
    if (phase === undefined) {
      if (section.kind !== "none") {
        gap();
        out.push(NO_PHASE_LINE);
        section = { kind: "none" };
      }
      out.push(...itemLines(todo));
      continue;
    }
    const index = position.get(phase);
    if (index === undefined) {
      // A phase the list does not declare: named on the item, so reading it back declares nothing.
      out.push(...itemLines(todo, phase));
      continue;
    }
    if (section.kind !== "phase" || section.name !== phase) {
      open(index);
      section = { kind: "phase", name: phase };
    }
    out.push(...itemLines(todo));
  }
  while (opened < declared.length) heading(declared[opened++] as string);
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}
