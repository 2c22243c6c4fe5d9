import { mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * A JSON file as the installer edits it: read with its layout (indentation,
 * line endings, final newline) and written back in that layout, atomically,
 * so a file in the usual layout comes back byte for byte after an install
 * and an uninstall.
 */

export interface JsonLayout {
  indent: string;
  eol: "\n" | "\r\n";
  finalNewline: boolean;
}

export const DEFAULT_LAYOUT: JsonLayout = { indent: "  ", eol: "\n", finalNewline: true };

export interface JsonFile {
  path: string;
  value: unknown;
  exists: boolean;
  layout: JsonLayout;
}

export function layoutOf(text: string): JsonLayout {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const finalNewline = /\r?\n$/.test(text);
  const lines = text.split(/\r?\n/);
  let indent = "";
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!/[[{]\s*$/.test(lines[i] as string)) continue;
    const lead = /^[ \t]+/.exec(lines[i + 1] as string)?.[0];
    const own = /^[ \t]*/.exec(lines[i] as string)?.[0] ?? "";
    if (lead !== undefined && lead.length > own.length) {
      indent = lead.slice(own.length);
      break;
    }
  }
  if (indent === "" && lines.filter((l) => l.trim() !== "").length > 1) indent = "  ";
  return { indent, eol, finalNewline };
}

export function formatJson(value: unknown, layout: JsonLayout): string {
  const text = JSON.stringify(value, null, layout.indent);
  const lines = layout.eol === "\n" ? text : text.replace(/\n/g, "\r\n");
  return layout.finalNewline ? `${lines}${layout.eol}` : lines;
}

/** Reads a JSON file; missing or empty is `{}`. Bad JSON (comments included) throws, naming the file. */
export async function readJsonFile(path: string): Promise<JsonFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return { path, value: {}, exists: false, layout: DEFAULT_LAYOUT };
    }
    throw error;
  }
  if (text.trim() === "") return { path, value: {}, exists: true, layout: DEFAULT_LAYOUT };
  try {
    return { path, value: JSON.parse(text), exists: true, layout: layoutOf(text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `${path} is not plain JSON (${reason}); comments are not kept by the installer, so edit it by hand or remove them first. Nothing was changed`,
    );
  }
}

/** Writes the value in the file's layout, atomically, keeping the file's mode. */
export async function writeJsonFile(file: JsonFile, value: unknown): Promise<void> {
  await mkdir(dirname(file.path), { recursive: true });
  const mode = ((await stat(file.path).catch(() => null))?.mode ?? 0o644) & 0o7777;
  const temp = `${file.path}.${process.pid}.tmp`;
  try {
    await writeFile(temp, formatJson(value, file.layout), { mode });
    await rename(temp, file.path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
