import { isAbsolute, join, resolve } from "node:path";
import { STORE_ROOT_ENV } from "../../store/root.js";

/** The store folder inside a project, next to Claude Code's own project settings. */
export const PROJECT_STORE_FOLDER = join(".claude", "todo-continuation");

export interface StoreRootInput {
  /** An explicit folder (`--dir`), resolved against `cwd`. */
  dir?: string | undefined;
  env: Record<string, string | undefined>;
  /** The hook input's `cwd`, else the process's. */
  cwd: string;
  /** The folder inside the project. Default: {@link PROJECT_STORE_FOLDER}. */
  folder?: string;
}

/**
 * The project a hook runs for: `$CLAUDE_PROJECT_DIR` (Claude Code sets it for
 * every hook), else the session's working folder.
 */
export function projectDir(env: Record<string, string | undefined>, cwd: string): string {
  const fromEnv = env.CLAUDE_PROJECT_DIR;
  return fromEnv !== undefined && fromEnv.trim() !== "" && isAbsolute(fromEnv) ? fromEnv : cwd;
}

/**
 * Where the hook keeps its lists and state: `--dir`, else
 * `$TODO_CONTINUATION_DIR`, else `<project>/.claude/todo-continuation`. Per
 * project by default, so two projects never share state, and keyed inside by
 * Claude Code's session id, so two sessions in one project never do either.
 */
export function hookStoreRoot(input: StoreRootInput): string {
  if (input.dir !== undefined && input.dir.trim() !== "") return resolve(input.cwd, input.dir);
  const fromEnv = input.env[STORE_ROOT_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return resolve(input.cwd, fromEnv);
  return join(projectDir(input.env, input.cwd), input.folder ?? PROJECT_STORE_FOLDER);
}

export { ignoreStoreFolder } from "../../store/file/self-ignore.js";
