import { commonInstaller } from "../installer/parse.js";
import { type CopilotInstallOptions, installCopilot, uninstallCopilot } from "./install.js";

export const COPILOT_INSTALL_USAGE = `Usage: todo-continuation install copilot [--project | --user] [options]
       todo-continuation uninstall copilot [--project | --user]

Writes one hooks file of its own (userPromptSubmitted, agentStop) into GitHub
Copilot CLI's hooks folder, or removes only that file. Prints what changed.

Targets:
  --project        <project>/.github/hooks/todo-continuation.json (default; trusted folders)
  --user           $COPILOT_HOME/hooks/todo-continuation.json (default ~/.copilot)
Options:
  --project-dir <path>  the project (default: the current folder)
  --preset <name>       default, typeclaw, parley, omo or pi (default: default)
  --entry <path>        run this script instead of the package's CLI
`;

/** `install copilot` / `uninstall copilot` (its row is in ../installer/table.ts). */
export const copilotInstaller = commonInstaller<CopilotInstallOptions>(
  COPILOT_INSTALL_USAGE,
  installCopilot,
  uninstallCopilot,
);
