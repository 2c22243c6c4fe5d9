import {
  type GeminiInstallOptions,
  installGemini,
  uninstallGemini,
} from "../../hosts/gemini/install.js";
import type { CliIo } from "../io.js";
import { parseProjectOrUserInstallArgs, runInstaller } from "./install-runner.js";

export const GEMINI_INSTALL_USAGE = `Usage: todo-continuation install gemini [--project | --user] [options]
       todo-continuation uninstall gemini [--project | --user]

Merges the hooks (BeforeAgent, BeforeTool and AfterTool for the todo tools and
invoke_agent, AfterAgent) into Gemini CLI's settings, keeping every other hook
and the file's layout, or removes only ours. A project install also lists the
hooks in ~/.gemini/trusted_hooks.json and says whether the folder is trusted.
Prints what changed, and whether the agent has a todo tool.

Targets:
  --project        <project>/.gemini/settings.json (default)
  --user           ~/.gemini/settings.json (every project; $GEMINI_CLI_HOME moves it)
Options:
  --project-dir <path>  the project (default: the current folder)
  --preset <name>       default, typeclaw, parley, omo or pi (default: default)
  --entry <path>        run this script instead of the package's hook entry
`;

/** Parses `install|uninstall gemini` arguments; `argv` may start with `gemini`. */
export function parseGeminiInstallArgs(
  argv: readonly string[],
  cwd: string,
): GeminiInstallOptions & { help: boolean } {
  return parseProjectOrUserInstallArgs("gemini", "settings files", argv, cwd);
}

/** `install gemini` / `uninstall gemini` from a command line; resolves to the exit code. */
export function runGeminiInstallCommand(
  action: "install" | "uninstall",
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  return runInstaller(
    {
      host: "gemini",
      usage: GEMINI_INSTALL_USAGE,
      parse: parseGeminiInstallArgs,
      install: installGemini,
      uninstall: uninstallGemini,
    },
    action,
    argv,
    io,
  );
}
