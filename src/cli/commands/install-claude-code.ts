import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { quoteInput } from "../../core/quote.js";
import {
  type ClaudeCodeInstallOptions,
  checkClaudeVersion,
  checkPreset,
  installClaudeCode,
  uninstallClaudeCode,
} from "../../hosts/claude-code/install.js";
import { MIN_CLAUDE_CODE_VERSION } from "../../hosts/claude-code/settings.js";
import type { CliIo } from "../io.js";
import { runInstaller } from "./install-runner.js";

export const INSTALL_USAGE = `Usage: todo-continuation install claude-code [--project | --local | --user] [options]
       todo-continuation uninstall claude-code [--project | --local | --user]

Merges the hooks into Claude Code's settings (keeping every other hook), or
removes only ours. Prints what changed.

Targets:
  --project        <project>/.claude/settings.json (default; shared with the team)
  --local          <project>/.claude/settings.local.json (this machine only)
  --user           ~/.claude/settings.json (every project; $CLAUDE_CONFIG_DIR moves it)
Options:
  --project-dir <path>  the project (default: the current folder)
  --preset <name>       default, typeclaw, parley, omo or pi (default: default)
  --entry <path>        run this script instead of the package's dist/cli/main.js
  --claude-version <v>  write for this Claude Code version (default: \`claude --version\`)

Writes only hook events the Claude Code version knows (StopFailure needs 2.1.78);
refuses versions older than ${MIN_CLAUDE_CODE_VERSION}. Keeps the file's indentation and final newline,
and writes through a symlinked settings file. Only --project adds
/.claude/todo-continuation/ to the project's .gitignore; uninstall removes it.
`;

/** Parses `install|uninstall claude-code` arguments; `argv` may start with `claude-code`. */
export function parseInstallArgs(
  argv: readonly string[],
  cwd: string,
): ClaudeCodeInstallOptions & { help: boolean } {
  const args = argv[0] === "claude-code" ? argv.slice(1) : [...argv];
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      project: { type: "boolean" },
      local: { type: "boolean" },
      user: { type: "boolean" },
      "project-dir": { type: "string" },
      preset: { type: "string" },
      entry: { type: "string" },
      "claude-version": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (positionals.length > 0) {
    throw new Error(`unexpected argument ${quoteInput(positionals[0] as string)}`);
  }
  const targets = (["project", "local", "user"] as const).filter((t) => values[t] === true);
  if (targets.length > 1) {
    throw new Error(`--${targets[0]} and --${targets[1]} name two settings files; pass only one`);
  }
  // Bad values are part of a bad command line: refused here, before anything runs.
  checkPreset(values.preset);
  if (values["claude-version"] !== undefined) checkClaudeVersion(values["claude-version"]);
  return {
    target: targets[0] ?? "project",
    projectDir: resolve(cwd, values["project-dir"] ?? "."),
    ...(values.preset !== undefined ? { preset: values.preset } : {}),
    ...(values.entry !== undefined ? { entry: resolve(cwd, values.entry) } : {}),
    ...(values["claude-version"] !== undefined ? { claudeVersion: values["claude-version"] } : {}),
    help: values.help === true,
  };
}

/** `install claude-code` / `uninstall claude-code` from a command line; resolves to the exit code. */
export function runInstallCommand(
  action: "install" | "uninstall",
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  return runInstaller(
    {
      host: "claude-code",
      usage: INSTALL_USAGE,
      parse: parseInstallArgs,
      install: installClaudeCode,
      uninstall: uninstallClaudeCode,
    },
    action,
    argv,
    io,
  );
}
