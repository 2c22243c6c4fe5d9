/**
 * Word wrapping for plain terminal text (help). Breaks only at spaces: a word
 * longer than the room left (a URL, a long flag) stays whole on its own line.
 */

/** Help width without a terminal (a pipe, a file), and the narrowest it ever gets. */
export const DEFAULT_WIDTH = 80;
const MIN_WIDTH = 40;

/** The width to lay help out for: the terminal's columns when there is one, else 80. */
export function helpWidth(stdout: { isTTY?: boolean; columns?: number }): number {
  const columns = stdout.isTTY === true ? stdout.columns : undefined;
  if (typeof columns !== "number" || !Number.isFinite(columns) || columns <= 0)
    return DEFAULT_WIDTH;
  return Math.max(MIN_WIDTH, Math.floor(columns));
}

/**
 * `text` as lines of at most `width` characters: the first starts with
 * `first`, the rest with `rest` (a hanging indent).
 */
export function wrapText(text: string, width: number, first = "", rest = first): string[] {
  const words = text.split(" ").filter((w) => w !== "");
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of words) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    line = empty ? `${line}${word}` : `${line} ${word}`;
    empty = false;
  }
  lines.push(line.trimEnd());
  return lines;
}

/**
 * Hard-wrapped lines joined back into sentences: a line that does not end a
 * sentence continues on the next. Each group is one paragraph to wrap anew.
 */
export function paragraphs(lines: readonly string[]): string[] {
  const out: string[] = [];
  let current = "";
  for (const line of lines) {
    current = current === "" ? line.trim() : `${current} ${line.trim()}`;
    if (/[.:)]$/.test(current)) {
      out.push(current);
      current = "";
    }
  }
  if (current !== "") out.push(current);
  return out;
}
