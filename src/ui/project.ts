import { basename, dirname, resolve } from "node:path";

/** The folders inside a project where hook hosts keep their store (`.claude/todo-continuation`...). */
const PROJECT_STORE_PARENTS: ReadonlySet<string> = new Set([".claude", ".codex", ".gemini"]);

/**
 * The project folder a file store belongs to, when it is one the hook hosts
 * keep inside a project (`<project>/.claude/todo-continuation` and the like):
 * every scope in it works in that folder. Null for any other store folder.
 */
export function projectOfStore(root: string): string | null {
  const full = resolve(root);
  if (basename(full) !== "todo-continuation") return null;
  const parent = dirname(full);
  if (!PROJECT_STORE_PARENTS.has(basename(parent))) return null;
  return dirname(parent);
}
