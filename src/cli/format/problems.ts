import type { StoreProblem } from "../../core/types.js";
import type { Style } from "../style.js";

const DOCUMENT_NAMES: Record<StoreProblem["document"], string> = {
  todos: "todo list",
  state: "continuation state",
  log: "decision log",
};

/** Whether any stored document is unreadable now (not just kept copies of earlier ones). */
export function hasUnreadable(problems: readonly StoreProblem[]): boolean {
  return problems.some((p) => p.problem !== null);
}

/** A short mark for tables: which documents are unreadable, or null. */
export function unreadableMark(problems: readonly StoreProblem[]): string | null {
  const bad = problems.filter((p) => p.problem !== null).map((p) => p.document);
  return bad.length === 0 ? null : `UNREADABLE ${bad.join("+")}`;
}

/**
 * Lines naming each unreadable file, what is wrong with it, where copies are
 * kept, and how to recover; empty when there is nothing to say.
 */
export function problemLines(problems: readonly StoreProblem[], style: Style): string[] {
  const lines: string[] = [];
  for (const p of problems) {
    const name = DOCUMENT_NAMES[p.document];
    if (p.problem !== null) {
      lines.push(style.red(`Unreadable ${name}: ${p.location}`));
      lines.push(`  ${p.problem}.`);
      lines.push(
        p.document === "state"
          ? "  No nudges until the user's next real turn; the next write keeps a copy of the file."
          : p.document === "log"
            ? "  The next decision sets it aside as a copy and starts a fresh log."
            : "  The next write keeps a copy of the file as it is; fix it by hand before then to keep your edit.",
      );
    }
    if (p.preserved.length > 0) {
      const latest = p.preserved.at(-1);
      const more = p.preserved.length > 1 ? ` (and ${p.preserved.length - 1} older)` : "";
      lines.push(style.yellow(`Copy kept of an earlier unreadable ${name}: ${latest}${more}`));
    }
  }
  return lines;
}
