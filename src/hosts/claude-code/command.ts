import {
  HOOK_SCRIPT,
  type HookCommand,
  type HookCommandInput,
  hookScript,
  shellQuote,
} from "../hook-kit/command.js";

/**
 * The shell command Claude Code runs for each hook. It must start fast, work
 * offline, and, for project settings that get committed, work from a fresh
 * clone on another machine. So:
 *
 * - the package installed in the project (`node_modules`): `node
 *   "$CLAUDE_PROJECT_DIR/node_modules/todo-continuation/dist/hook/main.cjs"`,
 *   portable across clones and machines once `npm install` has run, and
 *   never touching the network;
 * - anywhere else (a global install, a checkout): the absolute paths of this
 *   node binary and of the package's `dist/hook/main.cjs`. Exact and offline,
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

export type { HookCommand, HookCommandInput };
export { shellQuote };

/** What the hook says on stderr when its script is missing (one line, then exit 0). */
export const MISSING_SCRIPT_NOTE =
  "todo-continuation: hook skipped, its script is missing (run npm install, or install the hooks again)";

/** `[ -f script ] && exec node script args; echo note >&2`: runs the script, or says why not. */
function guarded(node: string, script: string, tail: string): string {
  return `[ -f ${script} ] && exec ${node} ${script} ${tail}; echo ${shellQuote(MISSING_SCRIPT_NOTE)} >&2`;
}

/** The command running `hook claude-code` (or another host's `args` over the same CLI). */
export function hookCommand(input: HookCommandInput, args: string = HOOK_ARGS): HookCommand {
  const tail = input.preset === undefined ? args : `${args} --preset ${input.preset}`;
  const { node, script, portable } = hookScript(input, HOOK_SCRIPT, "CLAUDE_PROJECT_DIR");
  return { command: guarded(node, script, tail), portable };
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
    /dist[\\/]+hook[\\/]+main\.cjs"?\s*$/.test(head) ||
    /claude-code[\\/]+bin\.js"?\s*$/.test(head)
  );
}
