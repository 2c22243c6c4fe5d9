import { dirname, join } from "node:path";
import { quoteInput } from "../../core/quote.js";
import {
  checkPreset,
  type HookInstallOptions,
  type HookInstallResult,
  installSettingsHost,
  type SettingsHost,
  uninstallSettingsHost,
} from "../hook-kit/host-install.js";
import {
  compareVersions,
  detectVersion,
  formatVersion,
  parseVersion,
  type Version,
  versionOf,
} from "../hook-kit/version.js";
import { hookCommand } from "./command.js";
import { claudeConfigDir } from "./config-dir.js";
import {
  hookSpecsFor,
  installedCommand,
  MIN_CLAUDE_CODE_VERSION,
  mergeHooks,
  removeHooks,
} from "./settings.js";
import { PROJECT_STORE_FOLDER } from "./store-location.js";

export { checkPreset, packageRootOf } from "../hook-kit/host-install.js";

/** Which settings file: the project's shared one, its personal one, or the user's. */
export type SettingsTarget = "project" | "local" | "user";

export interface ClaudeCodeInstallOptions extends HookInstallOptions<SettingsTarget> {
  /**
   * The Claude Code version to write for (`x.y.z`). Default: what
   * `claude --version` prints (the `claude` found on PATH).
   */
  claudeVersion?: string;
}

export type ClaudeCodeInstallResult = HookInstallResult;

/** The settings file a target names. */
export function settingsPath(
  target: SettingsTarget,
  project: string,
  env: Record<string, string | undefined>,
): string {
  if (target === "user") {
    return join(claudeConfigDir(env), "settings.json");
  }
  return join(project, ".claude", target === "local" ? "settings.local.json" : "settings.json");
}

/**
 * Where install notes each settings file's bytes before it first wrote there,
 * so that uninstall can restore them exactly (see ../hook-kit/install-ledger.ts): in
 * Claude Code's user folder, beside the user's settings.
 */
export function claudeInstallLedgerPath(env: Record<string, string | undefined>): string {
  return join(dirname(settingsPath("user", "", env)), "todo-continuation-installs.json");
}

/** Claude Code's settings files; a project or local install ignores the store folder in git. */
const CLAUDE: SettingsHost<SettingsTarget> = {
  name: "Claude Code",
  timeoutHost: "claude-code",
  file: (target, project, env) => ({
    path: settingsPath(target, project, env),
    ledger: claudeInstallLedgerPath(env),
    store: target === "user" ? null : join(project, PROJECT_STORE_FOLDER),
  }),
  command: (input) => hookCommand(input),
  remove: removeHooks,
  installedCommand,
};

/** The Claude Code version to write for: the one given, else the one on PATH, else null. */
async function claudeCodeVersion(
  given: string | undefined,
  env: Record<string, string | undefined>,
): Promise<Version | null> {
  if (given !== undefined) return checkClaudeVersion(given);
  return detectVersion("claude", env);
}

export function checkClaudeVersion(given: string): Version {
  const version = parseVersion(given);
  if (version === null || !/^\d+\.\d+(\.\d+)?$/.test(given.trim())) {
    throw new Error(`--claude-version must look like 2.1.78, got ${quoteInput(given)}`);
  }
  return version;
}

/**
 * Merges the Claude Code hooks into a settings file (see installSettingsHost).
 * Writes only events the installed Claude Code knows, and refuses a version
 * older than the supported minimum.
 */
export async function installClaudeCode(
  options: ClaudeCodeInstallOptions = {},
): Promise<ClaudeCodeInstallResult> {
  checkPreset(options.preset);
  const version = await claudeCodeVersion(options.claudeVersion, options.env ?? process.env);
  if (version !== null && compareVersions(version, versionOf(MIN_CLAUDE_CODE_VERSION)) < 0) {
    throw new Error(
      `Claude Code ${formatVersion(version)} is older than ${MIN_CLAUDE_CODE_VERSION}, the oldest ` +
        "version todo-continuation supports; update it (claude update) and install again. Nothing was changed",
    );
  }
  const { specs, left } = hookSpecsFor(version);
  const between = left.map((spec) =>
    version === null
      ? `Left out ${spec.event}: Claude Code's version is unknown (no \`claude\` on PATH) and ` +
        `${spec.event} needs ${spec.since} or newer. Install again with claude on PATH, or pass ` +
        "--claude-version."
      : `Left out ${spec.event}: Claude Code ${formatVersion(version)} does not know it ` +
        `(it needs ${spec.since} or newer). Install again after updating Claude Code.`,
  );
  const { result, target, out } = await installSettingsHost(CLAUDE, options, "project", {
    events: specs.map((s) => s.event),
    merge: (raw, command, path, stop) => mergeHooks(raw, command, specs, path, stop),
    between,
  });
  if (!result.portable && target === "project") {
    out(
      "Note: this command names paths on this machine. Add todo-continuation to the project's " +
        "devDependencies and install again for a command that works from any clone.",
    );
  }
  return { ...result, version: version === null ? null : formatVersion(version) };
}

/** Removes only our hooks from a settings file (see uninstallSettingsHost). */
export const uninstallClaudeCode = (
  options: ClaudeCodeInstallOptions = {},
): Promise<ClaudeCodeInstallResult> => uninstallSettingsHost(CLAUDE, options, "project");
