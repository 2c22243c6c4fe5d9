import { isAbsolute, join, relative, sep } from "node:path";

/**
 * The program and script a host's hook command runs. For a project install
 * with the package in the project's `node_modules`, the script is named
 * through the variable the host sets to the project folder (for example
 * `$CLAUDE_PROJECT_DIR`), so committed settings work from any clone; anywhere
 * else it names absolute paths, valid on this machine only. Never `npx`:
 * offline, it would try the registry on every hook call.
 */

/**
 * The script every hook command runs, inside the package: `main.cjs hook <host> [options]`.
 * CommonJS, and the host's bundle from V8's code cache (`hook-main.ts`): the fastest start there
 * is. Commands written by earlier versions (`dist/cli/main.js hook <host>`, a host's
 * `hook-main.js`) still work, a few milliseconds slower; installing again rewrites them.
 */
export const HOOK_SCRIPT = ["dist", "hook", "main.cjs"] as const;

export interface HookCommandInput {
  /** The project the settings belong to (for the portable form). */
  projectDir: string;
  /** Root folder of the installed todo-continuation package. */
  packageRoot: string;
  /** Absolute path of the node binary (default: the one running). */
  nodePath: string;
  /** Run this script instead of the package's entry (absolute path). */
  entry?: string;
  /** Preset passed to the hook. */
  preset?: string;
  /** Whether the portable form may be used (project settings). */
  portable: boolean;
}

export interface HookCommand {
  command: string;
  /** True when the command works from any clone of the project. */
  portable: boolean;
}

/** Quotes a value for POSIX sh inside double quotes. */
export function shellQuote(value: string): string {
  return `"${value.replace(/(["\\$`])/g, "\\$1")}"`;
}

/** `path` relative to `base` with `/` separators, or null when it is not inside. */
function within(base: string, path: string): string | null {
  const rel = relative(base, path);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel.split(sep).join("/");
}

/** The node program and the script, each ready for the shell. */
export interface HookScript {
  node: string;
  script: string;
  portable: boolean;
}

/**
 * What the command runs: `input.entry` when given, else the package file at
 * `entryPath` (path parts below the package root). `projectVar` is the
 * variable the host sets to the project folder (without `$`).
 */
export function hookScript(
  input: HookCommandInput,
  entryPath: readonly string[],
  projectVar: string,
): HookScript {
  const node = shellQuote(input.nodePath);
  if (input.entry !== undefined) return { node, script: shellQuote(input.entry), portable: false };
  const main = join(input.packageRoot, ...entryPath);
  const rel = input.portable ? within(input.projectDir, main) : null;
  if (rel?.split("/").includes("node_modules")) {
    // Only the variable is left unquoted-live; the rest is a plain relative path.
    return { node: "node", script: `"$${projectVar}/${shellQuote(rel).slice(1)}`, portable: true };
  }
  return { node, script: shellQuote(main), portable: false };
}
