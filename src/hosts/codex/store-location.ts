import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { STORE_ROOT_ENV } from "../../store/root.js";

/** The store folder inside a project, next to Codex's own project config. */
export const CODEX_PROJECT_STORE_FOLDER = join(".codex", "todo-continuation");

/**
 * The project a session works in: the nearest folder at or above `cwd` that
 * holds `.git` (Codex's default project-root marker), else `cwd` itself.
 * Codex tells hooks the session's working folder only, which may be deeper.
 */
export function codexProjectDir(
  cwd: string,
  exists: (path: string) => boolean = existsSync,
): string {
  let dir = resolve(cwd);
  for (;;) {
    if (exists(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}

export interface CodexStoreRootInput {
  /** An explicit folder (`--dir`), resolved against `cwd`. */
  dir?: string | undefined;
  env: Record<string, string | undefined>;
  /** The hook input's `cwd`, else the process's. */
  cwd: string;
  exists?: (path: string) => boolean;
}

/**
 * Where the hook keeps its lists and state: `--dir`, else
 * `$TODO_CONTINUATION_DIR`, else `<project>/.codex/todo-continuation`. Per
 * project, keyed inside by Codex's session id.
 */
export function codexStoreRoot(input: CodexStoreRootInput): string {
  if (input.dir !== undefined && input.dir.trim() !== "") return resolve(input.cwd, input.dir);
  const fromEnv = input.env[STORE_ROOT_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return resolve(input.cwd, fromEnv);
  return join(codexProjectDir(input.cwd, input.exists), CODEX_PROJECT_STORE_FOLDER);
}
