import { isAbsolute, join, relative, sep } from "node:path";

/**
 * The shell command Gemini CLI runs for each hook. It starts the package's
 * light hook entry (`dist/hosts/gemini/hook-main.js`), which loads the hook
 * and nothing of the CLI. For a project install with the package in the
 * project's `node_modules`, the command names it through
 * `$GEMINI_PROJECT_DIR`, so it works from any clone; otherwise it names
 * absolute paths, valid on this machine only. Never `npx`: offline, it would
 * try the registry on every hook call.
 */

/** Every hook we write carries this name: how uninstall and trust know our entries. */
export const GEMINI_HOOK_NAME = "todo-continuation";

/** The entry's path inside the package. */
export const HOOK_ENTRY = ["dist", "hosts", "gemini", "hook-main.js"] as const;

export interface GeminiHookCommandInput {
  projectDir: string;
  packageRoot: string;
  nodePath: string;
  /** Run this script instead of the package's hook entry (absolute path). */
  entry?: string;
  preset?: string;
  /** Whether the `$GEMINI_PROJECT_DIR` form may be used (project settings). */
  portable: boolean;
}

export interface GeminiHookCommand {
  command: string;
  portable: boolean;
}

/** Quotes a value for POSIX sh inside double quotes. */
export function shellQuote(value: string): string {
  return `"${value.replace(/(["\\$`])/g, "\\$1")}"`;
}

function within(base: string, path: string): string | null {
  const rel = relative(base, path);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel.split(sep).join("/");
}

export function geminiHookCommand(input: GeminiHookCommandInput): GeminiHookCommand {
  const tail = input.preset === undefined ? "" : ` --preset ${input.preset}`;
  if (input.entry !== undefined) {
    return {
      command: `${shellQuote(input.nodePath)} ${shellQuote(input.entry)}${tail}`,
      portable: false,
    };
  }
  const main = join(input.packageRoot, ...HOOK_ENTRY);
  const rel = input.portable ? within(input.projectDir, main) : null;
  if (rel?.split("/").includes("node_modules")) {
    const quoted = shellQuote(rel).slice(1);
    return { command: `node "$GEMINI_PROJECT_DIR/${quoted}${tail}`, portable: true };
  }
  return { command: `${shellQuote(input.nodePath)} ${shellQuote(main)}${tail}`, portable: false };
}
