import { quoteInput } from "../../core/quote.js";
import { HOOK_RUNNERS, loadHookRunner } from "../../hosts/hook-kit/runners.js";
import type { CommandSpec } from "../command.js";
import { UsageError } from "../errors.js";
import type { GlobalOptions } from "../global-options.js";

/** Global options given before a passthrough command, re-added as its own flags. */
export function forwardGlobals(
  global: GlobalOptions,
  names: readonly ("dir" | "databaseUrl" | "schema" | "preset")[],
): string[] {
  const flags: Record<(typeof names)[number], string> = {
    dir: "--dir",
    databaseUrl: "--database-url",
    schema: "--schema",
    preset: "--preset",
  };
  const out: string[] = [];
  for (const name of names) {
    const value = global[name];
    if (value !== undefined) out.push(flags[name], value);
  }
  return out;
}

export const hookCommand: CommandSpec = {
  name: "hook",
  summary: "Answer one Claude Code, Codex or Gemini CLI hook event (run by the host, not by hand)",
  usage: [
    "hook claude-code [--preset <name>] < event.json",
    "hook codex [--preset <name>] < event.json",
    "hook gemini [--preset <name>] < event.json",
    "hook copilot --event <agentStop|userPromptSubmitted> [--preset <name>] < event.json",
  ],
  details: [
    "Reads a hook event (Stop, UserPromptSubmit, PostToolUse, ...) as JSON on stdin and prints",
    "Claude Code's answer. Always exits 0 once running: its own errors allow the stop and are",
    "explained on stderr. `install claude-code` puts this command into Claude Code's settings.",
    "`install codex` and `install gemini` do the same for theirs. Run `hook <host> --help` for options.",
  ],
  args: { min: 1, max: Number.MAX_SAFE_INTEGER },
  passthrough: true,
  examples: ["hook claude-code < stop-event.json"],
  async run(ctx) {
    const [host, ...rest] = ctx.positionals;
    // The hook itself is host code; the command only forwards to it.
    const run = await loadHookRunner(host);
    if (run === null) {
      const hosts = Object.keys(HOOK_RUNNERS).join(", ");
      throw new UsageError(
        host === undefined
          ? "hook: name the host, as in `hook claude-code`"
          : `hook: unknown host ${quoteInput(host)}; the hosts with hooks are: ${hosts}`,
        "hook",
      );
    }
    const argv = [
      ...rest,
      ...forwardGlobals(ctx.global, ["dir", "databaseUrl", "schema", "preset"]),
    ];
    return run(argv, ctx.io);
  },
};
