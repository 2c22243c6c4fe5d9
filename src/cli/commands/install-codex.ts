import {
  type CodexInstallOptions,
  installCodex,
  uninstallCodex,
} from "../../hosts/codex/install.js";
import type { CliIo } from "../io.js";
import { parseProjectOrUserInstallArgs, runInstaller } from "./install-runner.js";

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

/** Parses `install|uninstall codex` arguments; `argv` may start with `codex`. */
export function parseCodexInstallArgs(
  argv: readonly string[],
  cwd: string,
): CodexInstallOptions & { help: boolean } {
  return parseProjectOrUserInstallArgs("codex", "config files", argv, cwd);
}

/** `install codex` / `uninstall codex` from a command line; resolves to the exit code. */
export function runCodexInstallCommand(
  action: "install" | "uninstall",
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  return runInstaller(
    {
      host: "codex",
      usage: CODEX_INSTALL_USAGE,
      parse: parseCodexInstallArgs,
      install: installCodex,
      uninstall: uninstallCodex,
    },
    action,
    argv,
    io,
  );
}
