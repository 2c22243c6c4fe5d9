import { stripAnsi } from "../style.js";

export type Align = "left" | "right";

export interface Column {
  header: string;
  align?: Align;
}

/** Visible width: colour codes take no room. */
function width(text: string): number {
  return stripAnsi(text).length;
}

function padCell(text: string, size: number, align: Align): string {
  const gap = " ".repeat(Math.max(0, size - width(text)));
  return align === "right" ? gap + text : text + gap;
}

/**
 * Aligned columns separated by two spaces; the last column is not padded so
 * lines carry no trailing blanks. Cells may contain colour codes.
 */
export function formatTable(columns: Column[], rows: string[][]): string[] {
  const sizes = columns.map((c, i) =>
    Math.max(width(c.header), ...rows.map((r) => width(r[i] ?? ""))),
  );
  const line = (cells: string[]): string =>
    columns
      .map((c, i) => {
        const cell = cells[i] ?? "";
        if (i === columns.length - 1 && (c.align ?? "left") === "left") return cell;
        return padCell(cell, sizes[i] ?? 0, c.align ?? "left");
      })
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...rows.map(line)];
}
