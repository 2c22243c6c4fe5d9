import { baseInstallOptions } from "../installer/parse.js";
import type { HostInstaller } from "../installer/row.js";
import {
  type ClaudeCodeInstallOptions,
  checkClaudeVersion,
  checkPreset,
  installClaudeCode,
  type SettingsTarget,
  uninstallClaudeCode,
} from "./install.js";
import { MIN_CLAUDE_CODE_VERSION } from "./settings.js";

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
  --entry <path>        run this script instead of the package's dist/hook/main.cjs
  --claude-version <v>  write for this Claude Code version (default: \`claude --version\`)

Writes only hook events the Claude Code version knows (StopFailure needs 2.1.78);
refuses versions older than ${MIN_CLAUDE_CODE_VERSION}. Keeps the file's indentation and final newline,
and writes through a symlinked settings file. Only --project adds
/.claude/todo-continuation/ to the project's .gitignore; uninstall removes it.
`;

/** `install claude-code` / `uninstall claude-code` (its row is in ../installer/table.ts). */
export const claudeCodeInstaller: HostInstaller<ClaudeCodeInstallOptions> = {
  usage: INSTALL_USAGE,
  options(args, cwd) {
    const version = args.values["claude-version"];
    checkPreset(args.values.preset);
    if (version !== undefined) checkClaudeVersion(version);
    const base = baseInstallOptions(args, cwd);
    return {
      ...base,
      target: base.target as SettingsTarget,
      ...(version !== undefined ? { claudeVersion: version } : {}),
    };
  },
  install: installClaudeCode,
  uninstall: uninstallClaudeCode,
};
