import { mkdir, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { STORE_ROOT_ENV } from "../../store/root.js";

/** The store folder inside a project, next to Claude Code's own project settings. */
export const PROJECT_STORE_FOLDER = join(".claude", "todo-continuation");

export interface StoreRootInput {
  /** An explicit folder (`--dir`), resolved against `cwd`. */
  dir?: string | undefined;
  env: Record<string, string | undefined>;
  /** The hook input's `cwd`, else the process's. */
  cwd: string;
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
  return join(projectDir(input.env, input.cwd), PROJECT_STORE_FOLDER);
}

/**
 * Makes a new store folder inside a project ignore itself: a `.gitignore`
 * of its own holding `*`, so `git status` stays clean in every repository a
 * user-level install runs in, without ever editing the repository's own
 * .gitignore. Returns false (and writes nothing) for a folder outside the
 * project or one that already has the file.
 */
export async function ignoreStoreFolder(project: string, root: string): Promise<boolean> {
  const rel = relative(resolve(project), resolve(root));
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return false;
  await mkdir(root, { recursive: true });
  try {
    await writeFile(
      join(root, ".gitignore"),
      "# todo-continuation's store: lists and state of this machine's sessions\n*\n",
      { flag: "wx" },
    );
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}
