import { isAbsolute, join, resolve } from "node:path";
import { STORE_ROOT_ENV } from "../../store/root.js";

/** The store folder inside a project, next to Gemini CLI's own project settings. */
export const GEMINI_PROJECT_STORE_FOLDER = join(".gemini", "todo-continuation");

/** The project a hook runs for: `$GEMINI_PROJECT_DIR` (set for every hook), else the session's folder. */
export function geminiProjectDir(env: Record<string, string | undefined>, cwd: string): string {
  const fromEnv = env.GEMINI_PROJECT_DIR;
  return fromEnv !== undefined && fromEnv.trim() !== "" && isAbsolute(fromEnv) ? fromEnv : cwd;
}

/**
 * Where the hook keeps lists and state: `--dir`, else `$TODO_CONTINUATION_DIR`,
 * else `<project>/.gemini/todo-continuation`. Per project, and keyed inside by
 * Gemini CLI's session id.
 */
export function geminiStoreRoot(input: {
  dir?: string | undefined;
  env: Record<string, string | undefined>;
  cwd: string;
}): string {
  if (input.dir !== undefined && input.dir.trim() !== "") return resolve(input.cwd, input.dir);
  const fromEnv = input.env[STORE_ROOT_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return resolve(input.cwd, fromEnv);
  return join(geminiProjectDir(input.env, input.cwd), GEMINI_PROJECT_STORE_FOLDER);
}
