import {
  HOOK_SCRIPT,
  type HookCommand,
  type HookCommandInput,
  hookScript,
  shellQuote,
} from "../hook-kit/command.js";

/**
 * The shell command Gemini CLI runs for each hook. It starts the package's
 * hook entry (`dist/hook/main.cjs hook gemini`), which loads the hook and
 * nothing of the CLI. For a project install with the package in the
 * project's `node_modules`, the command names it through
 * `$GEMINI_PROJECT_DIR`, so it works from any clone; otherwise it names
 * absolute paths, valid on this machine only. Never `npx`: offline, it would
 * try the registry on every hook call.
 */

/** Every hook we write carries this name: how uninstall and trust know our entries. */
export const GEMINI_HOOK_NAME = "todo-continuation";

/** The entry's path inside the package. */
export const HOOK_ENTRY = HOOK_SCRIPT;

export type GeminiHookCommandInput = HookCommandInput;
export type GeminiHookCommand = HookCommand;
export { shellQuote };

export function geminiHookCommand(input: GeminiHookCommandInput): GeminiHookCommand {
  const tail = input.preset === undefined ? "" : ` --preset ${input.preset}`;
  const { node, script, portable } = hookScript(input, HOOK_ENTRY, "GEMINI_PROJECT_DIR");
  return { command: `${node} ${script} hook gemini${tail}`, portable };
}
