import { commonInstaller } from "../installer/parse.js";
import { type CodexInstallOptions, installCodex, uninstallCodex } from "./install.js";

export const CODEX_INSTALL_USAGE = `Usage: todo-continuation install codex [--project | --user] [options]
       todo-continuation uninstall codex [--project | --user]

Adds the hooks (UserPromptSubmit, PostToolUse on update_plan, Stop, Interrupt)
and tools.update_plan.enabled = true to a Codex config.toml, and their trust
entries to your user config, so Codex runs them without a review and without
any bypass flag. Everything else in the files is left as it was; uninstall
removes exactly what install added. Prints what changed.

Targets:
  --project        <project>/.codex/config.toml (default; Codex reads it only in
                   trusted projects: install says how to trust one)
  --user           $CODEX_HOME/config.toml (every project; default ~/.codex)
Options:
  --project-dir <path>  the project (default: the current folder)
  --preset <name>       default, typeclaw, parley, omo or pi (default: default)
  --entry <path>        run this script instead of the package's hook entry
`;

/** `install codex` / `uninstall codex` (its row is in ../installer/table.ts). */
export const codexInstaller = commonInstaller<CodexInstallOptions>(
  CODEX_INSTALL_USAGE,
  installCodex,
  uninstallCodex,
);
