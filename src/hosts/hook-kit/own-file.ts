import { readFile, unlink } from "node:fs/promises";
import { writeTextFile } from "./settings-file.js";

/**
 * A file the integration owns whole (Copilot's hooks file): install writes it
 * only where no one else's file is, uninstall deletes it only when it is ours,
 * so every other byte on the machine stays as it was. `isOurs` tells ours.
 */

/**
 * The file's text, or null when there is none. A file that is there but cannot be read is an
 * error: taken for absent, install would replace it (a rename needs only the folder's permission).
 */
export async function readIfPresent(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    throw new Error(`${path} could not be read (${code ?? String(error)}); nothing was changed`);
  }
}

/** Writes `content` at `path` (unless it is there already) and says so; the changes made. */
export async function writeOwnFile(
  path: string,
  content: string,
  isOurs: (text: string) => boolean,
  out: (line: string) => void,
  what: string,
): Promise<string[]> {
  const existing = await readIfPresent(path);
  if (existing !== null && !isOurs(existing)) {
    throw new Error(`${path} exists and was not written by todo-continuation; nothing was changed`);
  }
  if (existing === content) {
    out(`${what} already installed at ${path}; nothing changed.`);
    return [];
  }
  await writeTextFile(path, content);
  const change = `${existing === null ? "added" : "updated"} ${path}`;
  out(change.charAt(0).toUpperCase() + change.slice(1));
  return [change];
}

/** Deletes the file at `path` when it is ours, and says what it did; the changes made. */
export async function removeOwnFile(
  path: string,
  isOurs: (text: string) => boolean,
  out: (line: string) => void,
): Promise<string[]> {
  const existing = await readIfPresent(path);
  const ours = existing !== null && isOurs(existing);
  if (ours) await unlink(path);
  if (existing === null) out(`No todo-continuation file at ${path}; nothing changed.`);
  else out(ours ? `Removed ${path}` : `Left ${path} alone: todo-continuation did not write it.`);
  return ours ? [`removed ${path}`] : [];
}
