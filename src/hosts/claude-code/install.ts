import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { PRESET_NAMES } from "../../core/engine/presets.js";
import { quoteInput } from "../../core/quote.js";
import { ensureGitignored, removeGitignored } from "../../store/file/index.js";
import { installWithLedger, uninstallWithLedger } from "../hook-kit/install-ledger.js";
import { readJsonFile } from "../hook-kit/settings-file.js";
import { stopTimeoutForInstall } from "../hook-kit/timeout.js";
import {
  compareVersions,
  detectVersion,
  formatVersion,
  parseVersion,
  type Version,
  versionOf,
} from "../hook-kit/version.js";
import { hookCommand } from "./command.js";
import {
  hookSpecsFor,
  installedCommand,
  MIN_CLAUDE_CODE_VERSION,
  mergeHooks,
  removeHooks,
} from "./settings.js";
import { PROJECT_STORE_FOLDER } from "./store-location.js";

/** Which settings file: the project's shared one, its personal one, or the user's. */
export type SettingsTarget = "project" | "local" | "user";

export interface ClaudeCodeInstallOptions {
  /** Default "project": `<project>/.claude/settings.json`. */
  target?: SettingsTarget;
  /** Default: the current folder. */
  projectDir?: string;
  /** Environment (HOME, CLAUDE_CONFIG_DIR, PATH). Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Preset the hook runs with (default: the hook's default). */
  preset?: string;
  /** Run this script instead of the package's `dist/cli/main.js` (absolute path). */
  entry?: string;
  /** Node binary for non-portable commands. Default: the one running. */
  nodePath?: string;
  /** Root of the installed package. Default: this module's package. */
  packageRoot?: string;
  /**
   * The Claude Code version to write for (`x.y.z`). Default: what
   * `claude --version` prints (the `claude` found on PATH).
   */
  claudeVersion?: string;
  /** Where the change report goes, one line per call. Default: stdout. */
  out?: (line: string) => void;
}

export interface ClaudeCodeInstallResult {
  settingsPath: string;
  /** What changed, one line each; empty when the file was already up to date. */
  changes: string[];
  /** The command the hooks run (install), or the one removed (uninstall, null if none). */
  command: string | null;
  /** Whether that command works from any clone of the project. */
  portable: boolean;
  /** The Claude Code version written for (install), null when unknown. */
  version?: string | null;
}

/** This package's root: `dist/hosts/claude-code` (or `src/hosts/claude-code`) is three levels down. */
export function packageRootOf(moduleUrl: string = import.meta.url): string {
  return resolve(dirname(fileURLToPath(moduleUrl)), "..", "..", "..");
}

/** The settings file a target names. */
export function settingsPath(
  target: SettingsTarget,
  project: string,
  env: Record<string, string | undefined>,
): string {
  if (target === "user") {
    const config = env.CLAUDE_CONFIG_DIR?.trim()
      ? env.CLAUDE_CONFIG_DIR
      : join(env.HOME?.trim() ? env.HOME : homedir(), ".claude");
    return join(config, "settings.json");
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

const settingsOwner = (path: string) => `settings:${resolve(path)}`;

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

export function checkPreset(preset: string | undefined): void {
  if (preset !== undefined && !(PRESET_NAMES as string[]).includes(preset)) {
    throw new Error(
      `--preset: unknown preset ${quoteInput(preset)}; valid: ${PRESET_NAMES.join(", ")}`,
    );
  }
}

function defaults(options: ClaudeCodeInstallOptions) {
  const env = options.env ?? process.env;
  const project = resolve(options.projectDir ?? process.cwd());
  const target = options.target ?? "project";
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  return { env, project, target, out, path: settingsPath(target, project, env) };
}

/** The `/.claude/todo-continuation/` line a project install adds to `.gitignore`. */
function ignoreLine(): string {
  return `/${PROJECT_STORE_FOLDER.split(sep).join("/")}/`;
}

/**
 * Merges the Claude Code hooks into a settings file, keeping every other hook
 * and setting and the file's own layout, and prints what changed. Writes
 * only events the installed Claude Code knows, and refuses a version older
 * than the supported minimum. Idempotent: a second run changes nothing. For
 * project installs, the per-project store folder is added to the project's
 * .gitignore (the only time anything edits it).
 */
export async function installClaudeCode(
  options: ClaudeCodeInstallOptions = {},
): Promise<ClaudeCodeInstallResult> {
  checkPreset(options.preset);
  const { env, project, target, out, path } = defaults(options);
  const version = await claudeCodeVersion(options.claudeVersion, env);
  if (version !== null && compareVersions(version, versionOf(MIN_CLAUDE_CODE_VERSION)) < 0) {
    throw new Error(
      `Claude Code ${formatVersion(version)} is older than ${MIN_CLAUDE_CODE_VERSION}, the oldest ` +
        "version todo-continuation supports; update it (claude update) and install again. Nothing was changed",
    );
  }
  const { specs, left } = hookSpecsFor(version);
  // A project check runs inside the Stop hook: its timeout covers it (refused when Claude Code cannot wait).
  const stopTimeout = stopTimeoutForInstall("claude-code", project, env);
  const { command, portable } = hookCommand({
    projectDir: project,
    packageRoot: options.packageRoot ?? packageRootOf(),
    nodePath: options.nodePath ?? process.execPath,
    portable: target !== "user",
    ...(options.entry !== undefined ? { entry: resolve(options.entry) } : {}),
    ...(options.preset !== undefined ? { preset: options.preset } : {}),
  });
  const file = await readJsonFile(path);
  const merged = mergeHooks(file.value, command, specs, path, stopTimeout.value);
  const changes = [...merged.changes];
  // All or nothing: the .gitignore line first, taken out again when the settings cannot be written.
  const ignored =
    target !== "user" &&
    existsSync(join(project, ".git")) &&
    (await ensureGitignored(project, join(project, PROJECT_STORE_FOLDER)));
  if (changes.length > 0) {
    const hadOurs = installedCommand(file.value) !== null;
    try {
      await installWithLedger(claudeInstallLedgerPath(env), [
        { owner: settingsOwner(path), file, value: merged.settings, hadOurs },
      ]);
    } catch (error) {
      if (ignored)
        await removeGitignored(project, join(project, PROJECT_STORE_FOLDER)).catch(() => false);
      throw error;
    }
  }
  if (ignored) changes.push(`added ${ignoreLine()} to ${join(project, ".gitignore")}`);
  if (changes.length === 0) {
    out(`Claude Code hooks already installed in ${path}; nothing changed.`);
  } else {
    out(`Updated ${path}:`);
    for (const change of changes) out(`  ${change}`);
  }
  out(`Hook events: ${specs.map((s) => s.event).join(", ")}`);
  for (const spec of left) {
    out(
      version === null
        ? `Left out ${spec.event}: Claude Code's version is unknown (no \`claude\` on PATH) and ` +
            `${spec.event} needs ${spec.since} or newer. Install again with claude on PATH, or pass ` +
            "--claude-version."
        : `Left out ${spec.event}: Claude Code ${formatVersion(version)} does not know it ` +
            `(it needs ${spec.since} or newer). Install again after updating Claude Code.`,
    );
  }
  out(`Hook command: ${command}`);
  out(stopTimeout.line);
  if (!portable && target === "project") {
    out(
      "Note: this command names paths on this machine. Add todo-continuation to the project's " +
        "devDependencies and install again for a command that works from any clone.",
    );
  }
  return {
    settingsPath: path,
    changes,
    command,
    portable,
    version: version === null ? null : formatVersion(version),
  };
}

/**
 * Removes only our hooks from a settings file and, for a project, the
 * .gitignore lines the install added; prints what changed. A file install
 * created goes (with the folders made for it), and one that is as install
 * left it gets its exact bytes back (from the ledger); a file edited since
 * keeps the edits, minus our hooks, in its own layout.
 */
export async function uninstallClaudeCode(
  options: ClaudeCodeInstallOptions = {},
): Promise<ClaudeCodeInstallResult> {
  const { env, project, target, out, path } = defaults(options);
  const file = await readJsonFile(path);
  const command = installedCommand(file.value);
  const removed = removeHooks(file.value, path);
  const changes = [...removed.changes];
  const [action] = await uninstallWithLedger(claudeInstallLedgerPath(env), [
    { owner: settingsOwner(path), file, value: removed.settings, changed: changes.length > 0 },
  ]);
  if (action === "removed") changes.push(`removed ${path}, which install had created`);
  if (action === "restored") changes.push(`restored ${path} to its bytes before install`);
  if (target !== "user" && (await removeGitignored(project, join(project, PROJECT_STORE_FOLDER)))) {
    changes.push(`removed ${ignoreLine()} from ${join(project, ".gitignore")}`);
  }
  if (changes.length === 0) {
    out(
      `No todo-continuation hooks in ${path}${file.exists ? "" : " (no such file)"}; nothing changed.`,
    );
  } else {
    out(`Updated ${path}:`);
    for (const change of changes) out(`  ${change}`);
  }
  return { settingsPath: path, changes, command, portable: false };
}
