import { installQwen, type QwenInstallOptions, uninstallQwen } from "../../hosts/qwen/install.js";
import type { CliIo } from "../io.js";
import { parseProjectOrUserInstallArgs, runInstaller } from "./install-runner.js";

export const QWEN_INSTALL_USAGE = `Usage: todo-continuation install qwen [--project | --user] [options]
       todo-continuation uninstall qwen [--project | --user]

Merges the hooks (SessionStart on resume, UserPromptSubmit, PostToolUse on
todo_write, Stop) into Qwen Code's settings, keeping every other hook and the
file's layout, or removes only ours. Prints what changed, and whether the
todo_write tool is on (Qwen Code turns it off by default).

Targets:
  --project        <project>/.qwen/settings.json (default; loads in a trusted folder)
  --user           ~/.qwen/settings.json (every project; $QWEN_HOME moves it)
Options:
  --project-dir <path>  the project (default: the current folder)
  --preset <name>       default, typeclaw, parley, omo or pi (default: default)
  --entry <path>        run this script instead of the package's dist/cli/main.js
`;

/** Parses `install|uninstall qwen` arguments; `argv` may start with `qwen`. */
export function parseQwenInstallArgs(
  argv: readonly string[],
  cwd: string,
): QwenInstallOptions & { help: boolean } {
  return parseProjectOrUserInstallArgs("qwen", "settings files", argv, cwd);
}

/** `install qwen` / `uninstall qwen` from a command line; resolves to the exit code. */
export function runQwenInstallCommand(
  action: "install" | "uninstall",
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  return runInstaller(
    {
      host: "qwen",
      usage: QWEN_INSTALL_USAGE,
      parse: parseQwenInstallArgs,
      install: installQwen,
      uninstall: uninstallQwen,
    },
    action,
    argv,
    io,
  );
}
