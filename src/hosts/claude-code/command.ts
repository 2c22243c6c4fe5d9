import { isAbsolute, join, relative, sep } from "node:path";

/**
 * The shell command Claude Code runs for each hook. It must start fast, work
 * offline, and, for project settings that get committed, work from a fresh
 * clone on another machine. So:
 *
 * - the package installed in the project (`node_modules`): `node
 *   "$CLAUDE_PROJECT_DIR/node_modules/todo-continuation/dist/cli/main.js"`,
 *   portable across clones and machines once `npm install` has run, and
 *   never touching the network;
 * - anywhere else (a global install, a checkout): the absolute paths of this
 *   node binary and of the package's `dist/cli/main.js`. Exact and offline,
 *   but valid on this machine only, so it suits user or local settings.
 *
 * `npx todo-continuation` is never written: on a machine without the package
 * it would try the registry on every hook call, and offline it fails slowly.
 *
 * Every form first checks that the script is there: committed settings in a
 * clone that has not run `npm install` yet then print one short line on
 * stderr and exit 0 (Claude Code carries on), instead of a Node stack trace
 * on every hook call.
 */

/** What identifies our command among a settings file's hooks. */
export const HOOK_ARGS = "hook claude-code";

export interface HookCommandInput {
  /** The project the settings belong to (for the portable form). */
  projectDir: string;
  /** Root folder of the installed todo-continuation package. */
  packageRoot: string;
  /** Absolute path of the node binary (default: the one running). */
  nodePath: string;
  /** Run this script instead of the package's CLI (absolute path). */
  entry?: string;
  /** Preset passed to the hook. */
  preset?: string;
  /** Whether the portable `$CLAUDE_PROJECT_DIR` form may be used (project settings). */
  portable: boolean;
  /** The CLI arguments that name the host's hook. Default: {@link HOOK_ARGS}. */
  args?: string;
}

export interface HookCommand {
  command: string;
  /** True when the command works from any clone of the project. */
  portable: boolean;
}

/** Quotes a value for POSIX sh inside double quotes, keeping `$CLAUDE_PROJECT_DIR` live only where intended. */
export function shellQuote(value: string): string {
  return `"${value.replace(/(["\\$`])/g, "\\$1")}"`;
}

function within(base: string, path: string): string | null {
  const rel = relative(base, path);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel.split(sep).join("/");
}

/** What the hook says on stderr when its script is missing (one line, then exit 0). */
export const MISSING_SCRIPT_NOTE =
  "todo-continuation: hook skipped, its script is missing (run npm install, or install the hooks again)";

/** `[ -f script ] && exec node script args; echo note >&2`: runs the script, or says why not. */
function guarded(node: string, script: string, tail: string): string {
  return `[ -f ${script} ] && exec ${node} ${script} ${tail}; echo ${shellQuote(MISSING_SCRIPT_NOTE)} >&2`;
}

export function hookCommand(input: HookCommandInput): HookCommand {
  const args = input.args ?? HOOK_ARGS;
  const tail = input.preset === undefined ? args : `${args} --preset ${input.preset}`;
  if (input.entry !== undefined) {
    return {
      command: guarded(shellQuote(input.nodePath), shellQuote(input.entry), tail),
      portable: false,
    };
  }
  const main = join(input.packageRoot, "dist", "cli", "main.js");
  const rel = input.portable ? within(input.projectDir, main) : null;
  if (rel?.split("/").includes("node_modules")) {
    // Only the variable is left unquoted-live; the rest is a plain relative path.
    const script = `"$CLAUDE_PROJECT_DIR/${shellQuote(rel).slice(1)}`;
    return { command: guarded("node", script, tail), portable: true };
  }
  return {
    command: guarded(shellQuote(input.nodePath), shellQuote(main), tail),
    portable: false,
  };
}

/**
 * The script a command of ours runs, as the shell would see it with
 * `$CLAUDE_PROJECT_DIR` set to `projectDir`; null when it names none we know.
 */
export function commandScript(command: string, projectDir: string): string | null {
  const match = /\[ -f "((?:[^"\\]|\\.)*)" \]/.exec(command);
  if (match === null) {
    const legacy = /"((?:[^"\\]|\\.)*(?:main|bin)\.js)"/.exec(command);
    if (legacy === null) return null;
    return unquote(legacy[1] as string, projectDir);
  }
  return unquote(match[1] as string, projectDir);
}

function unquote(inner: string, projectDir: string): string {
  return inner
    .replace(/(?<!\\)\$CLAUDE_PROJECT_DIR/g, () => projectDir)
    .replace(/\\(["\\$`])/g, "$1");
}

/** True for a hook command this integration wrote (whatever path or preset it names). */
export function isOurCommand(command: unknown, hookArgs: string = HOOK_ARGS): boolean {
  if (typeof command !== "string") return false;
  const args = command.indexOf(hookArgs);
  if (args < 0) return false;
  const head = command.slice(0, args);
  return (
    head.includes("todo-continuation") ||
    /dist[\\/]+cli[\\/]+main\.js"?\s*$/.test(head) ||
    /claude-code[\\/]+bin\.js"?\s*$/.test(head)
  );
}
