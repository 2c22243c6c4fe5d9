import {
  type CopilotInstallOptions,
  installCopilot,
  uninstallCopilot,
} from "../../hosts/copilot/install.js";
import type { CliIo } from "../io.js";
import { parseProjectOrUserInstallArgs, runInstaller } from "./install-runner.js";

export const COPILOT_INSTALL_USAGE = `Usage: todo-continuation install copilot [--project | --user] [options]
       todo-continuation uninstall copilot [--project | --user]

Writes one hooks file of its own (userPromptSubmitted, agentStop) into GitHub
Copilot CLI's hooks folder, or removes only that file. Prints what changed.

Targets:
  --project        <project>/.github/hooks/todo-continuation.json (default; Copilot
                   loads it once the folder is trusted)
  --user           $COPILOT_HOME/hooks/todo-continuation.json (default ~/.copilot)
Options:
  --project-dir <path>  the project (default: the current folder)
  --preset <name>       default, typeclaw, parley, omo or pi (default: default)
  --entry <path>        run this script instead of the package's CLI
`;

/** `install copilot` / `uninstall copilot` from a command line; resolves to the exit code. */
export function runCopilotInstallCommand(
  action: "install" | "uninstall",
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  return runInstaller<CopilotInstallOptions>(
    {
      host: "copilot",
      usage: COPILOT_INSTALL_USAGE,
      parse: (args, cwd) => parseProjectOrUserInstallArgs("copilot", "hooks folders", args, cwd),
      install: installCopilot,
      uninstall: uninstallCopilot,
    },
    action,
    argv,
    io,
  );
}
