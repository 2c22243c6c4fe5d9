import { lstat, mkdir, readFile, readlink, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { replaceFileDurably } from "../../store/file/atomic.js";

/**
 * A JSON settings file as the installers edit it: written through a symlink
 * (dotfiles often link settings into a repository), atomically, and in the
 * file's own layout (indentation, line endings, final newline), so a file
 * that was in `JSON.stringify` layout comes back byte for byte after an
 * install and an uninstall.
 */

export interface JsonLayout {
  /** A tab, some spaces, or "" for a one-line file. */
  indent: string;
  eol: "\n" | "\r\n";
  finalNewline: boolean;
}

/** The layout of a new file: two spaces, `\n`, a final newline. */
export const DEFAULT_LAYOUT: JsonLayout = { indent: "  ", eol: "\n", finalNewline: true };

export interface JsonFile {
  /** The path as given. */
  path: string;
  value: unknown;
  exists: boolean;
  layout: JsonLayout;
}

/** How a JSON text is laid out. */
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

/** A value in a layout. */
export function formatJson(value: unknown, layout: JsonLayout): string {
  const text = JSON.stringify(value, null, layout.indent);
  const lines = layout.eol === "\n" ? text : text.replace(/\n/g, "\r\n");
  return layout.finalNewline ? `${lines}${layout.eol}` : lines;
}

/** Reads a JSON file; a missing or empty file is `{}`. Bad JSON throws, naming the file. */
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
      `${path} is not valid JSON (${reason}); comments are not kept by the installer, so edit it by hand or remove them first. Nothing was changed`,
    );
  }
}

/** The file a path ends at once every symlink is followed (it may not exist yet). */
export async function linkTarget(path: string): Promise<string> {
  let current = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    const info = await lstat(current).catch(() => null);
    if (info === null || !info.isSymbolicLink()) return current;
    current = resolve(dirname(current), await readlink(current));
  }
  throw new Error(`${path}: too many levels of symbolic links; nothing was changed`);
}

/**
 * Replaces the file's content atomically (a crash mid-write never leaves half
 * a file), keeping its mode. A symlink stays a symlink: its target is written.
 * A write refused part way (no space, quota, a rename refused) leaves the
 * file's old bytes and no temporary behind (the store's own writer does it).
 */
export async function writeTextFile(path: string, text: string): Promise<void> {
  const target = await linkTarget(path);
  await mkdir(dirname(target), { recursive: true });
  const mode = ((await stat(target).catch(() => null))?.mode ?? 0o644) & 0o7777;
  replaceFileDurably(target, Buffer.from(text, "utf8"), mode);
}

/** Writes a value in the file's own layout (through a symlink, atomically). */
export function writeJsonFile(file: JsonFile, value: unknown): Promise<void> {
  return writeTextFile(file.path, formatJson(value, file.layout));
}
