import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PRESET_NAMES } from "../../core/engine/presets.js";
import { quoteInput } from "../../core/quote.js";
import type { HookCommand, HookCommandInput } from "./command.js";
import type { SettingsChange } from "./hook-settings.js";
import { readJsonFile } from "./settings-file.js";
import {
  commitHookSettings,
  type HookSettingsFile,
  reportChanges,
  revertHookSettings,
} from "./settings-install.js";
import { type HookHost, stopTimeoutForInstall } from "./timeout.js";

/**
 * The install and uninstall steps every host with a JSON settings file shares
 * (Claude Code, Qwen Code): resolve the options, build the hook command, merge,
 * write through the ledger with the .gitignore line, report. Each host gives
 * its file, its merge and its own notes.
 */

/** A process environment (HOME, the host's config folder, PATH). */
export type HostEnv = Record<string, string | undefined>;

export interface HookInstallOptions<T extends string> {
  /** Which settings file; default "project". */
  target?: T;
  /** Default: the current folder. */
  projectDir?: string;
  /** Environment (HOME, the host's config folder, PATH). Default: process.env. */
  env?: HostEnv;
  /** Preset the hook runs with (default: the hook's default). */
  preset?: string;
  /** Run this script instead of the package's `dist/hook/main.cjs` (absolute path). */
  entry?: string;
  /** Node binary for non-portable commands. Default: the one running. */
  nodePath?: string;
  /** Root of the installed package. Default: this module's package. */
  packageRoot?: string;
  /** Where the change report goes, one line per call. Default: stdout. */
  out?: (line: string) => void;
}

export interface HookInstallResult {
  settingsPath: string;
  /** What changed, one line each; empty when the file was already up to date. */
  changes: string[];
  /** The command the hooks run (install), or the one removed (uninstall, null if none). */
  command: string | null;
  /** Whether that command works from any clone of the project. */
  portable: boolean;
  /** The host version written for (install), null when unknown. */
  version?: string | null;
}

export interface SettingsHost<T extends string> {
  /** Its name in messages ("Claude Code"). */
  name: string;
  timeoutHost: HookHost;
  /**
   * The settings file a target names and the host's install ledger; for a
   * file in the project, the store folder to keep out of git (its command may
   * then name the project through the host's variable), else null.
   */
  file(
    target: T,
    project: string,
    env: HostEnv,
  ): { path: string; ledger: string; store: string | null };
  command(input: HookCommandInput): HookCommand;
  remove(raw: unknown, path: string): SettingsChange;
  /** The command our hooks run in a settings value, or null when none is installed. */
  installedCommand(raw: unknown): string | null;
}

/** This package's root: `dist/hosts/hook-kit` (or `src/hosts/...`) is three levels down. */
export function packageRootOf(moduleUrl: string = import.meta.url): string {
  return resolve(dirname(fileURLToPath(moduleUrl)), "..", "..", "..");
}

export function checkPreset(preset: string | undefined): void {
  if (preset !== undefined && !(PRESET_NAMES as string[]).includes(preset)) {
    throw new Error(
      `--preset: unknown preset ${quoteInput(preset)}; valid: ${PRESET_NAMES.join(", ")}`,
    );
  }
}

/**
 * What an install's options say of the hook command: the package's own entry (or `--entry`,
 * made absolute: a hook runs from whatever folder its host is in), the node that runs it, the
 * preset; `portable` when the command may name the project through the host's variable.
 */
export function hookCommandInput(
  options: Pick<HookInstallOptions<string>, "entry" | "nodePath" | "packageRoot" | "preset">,
  project: string,
  portable: boolean,
): HookCommandInput {
  return {
    projectDir: project,
    packageRoot: options.packageRoot ?? packageRootOf(),
    nodePath: options.nodePath ?? process.execPath,
    portable,
    ...(options.entry !== undefined ? { entry: resolve(options.entry) } : {}),
    ...(options.preset !== undefined ? { preset: options.preset } : {}),
  };
}

function setup<T extends string>(host: SettingsHost<T>, options: HookInstallOptions<T>, dflt: T) {
  const env = options.env ?? process.env;
  const project = resolve(options.projectDir ?? process.cwd());
  const target = options.target ?? dflt;
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const { path, ledger, store } = host.file(target, project, env);
  const ignore = store === null ? null : { project, store };
  const settings: HookSettingsFile = { path, ledger, owner: `settings:${resolve(path)}`, ignore };
  return { env, project, target, out, settings };
}

export interface HookInstallSteps {
  /** The events written, for the report. */
  events: readonly string[];
  merge(raw: unknown, command: string, path: string, stopSeconds: number): SettingsChange;
  /** Lines printed between the events and the command. */
  between?: readonly string[];
}

/**
 * Merges our hooks into the target's settings, keeping every other hook and
 * setting and the file's layout; a project install also ignores the store
 * folder in git, all or nothing. Idempotent. Returns the merged settings too,
 * for the host's own notes.
 */
export async function installSettingsHost<T extends string>(
  host: SettingsHost<T>,
  options: HookInstallOptions<T>,
  dflt: T,
  steps: HookInstallSteps,
) {
  checkPreset(options.preset);
  const { env, project, target, out, settings } = setup(host, options, dflt);
  const path = settings.path;
  // A project check runs inside the Stop hook: its timeout covers it (refused when the host cannot wait).
  const stop = stopTimeoutForInstall(host.timeoutHost, project, env);
  const { command, portable } = host.command(
    hookCommandInput(options, project, settings.ignore !== null),
  );
  const file = await readJsonFile(path);
  const merged = steps.merge(file.value, command, path, stop.value);
  const hadOurs = host.installedCommand(file.value) !== null;
  const changes = await commitHookSettings(settings, file, merged, hadOurs);
  reportChanges(
    out,
    path,
    changes,
    `${host.name} hooks already installed in ${path}; nothing changed.`,
  );
  out(`Hook events: ${steps.events.join(", ")}`);
  for (const line of steps.between ?? []) out(line);
  out(`Hook command: ${command}`);
  out(stop.line);
  const result: HookInstallResult = { settingsPath: path, changes, command, portable };
  return { result, merged: merged.settings, env, project, target, out };
}

/**
 * Removes only our hooks and, for a project, the .gitignore line install
 * added. A file install created goes; one as install left it gets its exact
 * bytes back (from the ledger); one edited since keeps the edits.
 */
export async function uninstallSettingsHost<T extends string>(
  host: SettingsHost<T>,
  options: HookInstallOptions<T>,
  dflt: T,
): Promise<HookInstallResult> {
  const { out, settings } = setup(host, options, dflt);
  const path = settings.path;
  const file = await readJsonFile(path);
  const command = host.installedCommand(file.value);
  const changes = await revertHookSettings(settings, file, host.remove(file.value, path));
  const none = `No todo-continuation hooks in ${path}${file.exists ? "" : " (no such file)"}; nothing changed.`;
  reportChanges(out, path, changes, none);
  return { settingsPath: path, changes, command, portable: false };
}
