import { commonInstaller } from "../installer/parse.js";
import { installQwen, type QwenInstallOptions, uninstallQwen } from "./install.js";

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
  --entry <path>        run this script instead of the package's dist/hook/main.cjs
`;

/** `install qwen` / `uninstall qwen` (its row is in ../installer/table.ts). */
export const qwenInstaller = commonInstaller<QwenInstallOptions>(
  QWEN_INSTALL_USAGE,
  installQwen,
  uninstallQwen,
);
