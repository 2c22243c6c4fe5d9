import { commonInstaller } from "../installer/parse.js";
import { type GeminiInstallOptions, installGemini, uninstallGemini } from "./install.js";

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

/** `install gemini` / `uninstall gemini` (its row is in ../installer/table.ts). */
export const geminiInstaller = commonInstaller<GeminiInstallOptions>(
  GEMINI_INSTALL_USAGE,
  installGemini,
  uninstallGemini,
);
