import { existsSync, realpathSync } from "node:fs";
import { mkdir, readFile, rm, rmdir } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { ensureGitignored, removeGitignored } from "../../store/file/index.js";
import { HOOK_SCRIPT, shellQuote } from "../hook-kit/command.js";
import { checkPreset, packageRootOf } from "../hook-kit/host-install.js";
import { writeTextFile } from "../hook-kit/settings-file.js";
import { stopTimeoutForInstall } from "../hook-kit/timeout.js";
import { hostUserDir } from "../hook-kit/user-dir.js";
import {
  type FileBefore,
  type FoundBefore,
  installedCommand,
  installHooksBlock,
  installTrustBlock,
  projectTrusted,
  readToml,
  removeWhenEmpty,
  uninstallHooksBlock,
  uninstallTrustBlock,
} from "./config-block.js";
import { CODEX_PROJECT_STORE_FOLDER } from "./store-location.js";

/** Which config gets the hooks: the project's `.codex/config.toml` or the user's. */
export type CodexTarget = "project" | "user";

export interface CodexInstallOptions {
  /** Default "project". */
  target?: CodexTarget;
  /** Default: the current folder. */
  projectDir?: string;
  /** Environment (HOME, CODEX_HOME). Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Preset the hook runs with (default: the hook's default). */
  preset?: string;
  /** Run this script instead of the package's hook entry (absolute path). */
  entry?: string;
  /** Node binary the command names. Default: the one running. */
  nodePath?: string;
  /** Root of the installed package. Default: this module's package. */
  packageRoot?: string;
  /** Where the change report goes, one line per call. Default: stdout. */
  out?: (line: string) => void;
}

export interface CodexInstallResult {
  /** The config holding the hooks. */
  configPath: string;
  /** The user config holding their trust entries. */
  userConfigPath: string;
  /** What changed, one line each; empty when everything was already up to date. */
  changes: string[];
  /** The command the hooks run. */
  command: string;
}

/** Codex's home folder: `$CODEX_HOME`, else `~/.codex`. */
export const codexHome = (env: Record<string, string | undefined>): string =>
  hostUserDir(env, "CODEX_HOME", [".codex"]);

/** The folder as Codex names it: symlinks resolved once it exists. */
function canonical(path: string): string {
  return existsSync(path) ? realpathSync(path) : path;
}

/** Whether an installed hook command names the config it is in (`--target`; older installs do not). */
export const namesTarget = (command: string): boolean =>
  / --target (user|project)( |$)/.test(command);

/**
 * Ours in the user's and the project's config: Codex runs both copies at once for every event
 * (measured on 0.169.0). Commands that name their config handle each event once; older ones
 * each decide it, and a stop decided twice ends its episode.
 */
export function twiceInstalled(paths: readonly string[], commands: readonly string[]): string {
  const both = `todo-continuation's hooks are in both ${paths.join(" and ")}: Codex runs both for every event`;
  return commands.every(namesTarget)
    ? `${both} (the second copy does nothing); one would do.`
    : `${both}, and a command without --target decides each event again (a stop decided twice ends its episode). Install again in both, or keep one.`;
}

/** The command Codex runs for each hook: absolute paths, no shell lookups, no network. */
export function codexHookCommand(options: CodexInstallOptions): string {
  const entry =
    options.entry !== undefined
      ? resolve(options.entry)
      : join(options.packageRoot ?? packageRootOf(), ...HOOK_SCRIPT);
  const node = options.nodePath ?? process.execPath;
  const preset = options.preset === undefined ? "" : ` --preset ${options.preset}`;
  // Which config holds it: Codex runs ours from both at once, and one copy handles each event.
  const target = ` --target ${options.target ?? "project"}`;
  return `${shellQuote(node)} ${shellQuote(entry)} hook codex${preset}${target}`;
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}

/** Whether a file and its folder exist now (before an install writes them). */
function fileBefore(path: string): FileBefore {
  return { exists: existsSync(path), folderExists: existsSync(dirname(path)) };
}

async function locate(options: CodexInstallOptions, create: boolean) {
  const env = options.env ?? process.env;
  const target = options.target ?? "project";
  const home = codexHome(env);
  const homeExisted = existsSync(home);
  // Made before it is named, so its path is the canonical one Codex uses; uninstall makes nothing.
  if (create) await mkdir(home, { recursive: true });
  const userPath = join(canonical(home), "config.toml");
  const project = canonical(resolve(options.projectDir ?? process.cwd()));
  const configPath = target === "user" ? userPath : join(project, ".codex", "config.toml");
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const userBefore: FileBefore = {
    exists: existsSync(userPath),
    folderExists: homeExisted,
  };
  return { target, project, userPath, configPath, out, userBefore };
}

/**
 * Adds the hooks (and `tools.update_plan.enabled`) to the chosen config and
 * their trust entries to the user's config, so Codex runs them without a
 * review and without `--dangerously-bypass-hook-trust`. Idempotent; a changed
 * command rewrites the hooks and their trust together.
 */
export async function installCodex(options: CodexInstallOptions = {}): Promise<CodexInstallResult> {
  checkPreset(options.preset);
  const { target, project, userPath, configPath, out, userBefore } = await locate(options, true);
  const command = codexHookCommand(options);
  const configBefore = configPath === userPath ? userBefore : fileBefore(configPath);
  const configOld = await readText(configPath);
  // A project check runs inside the Stop hook: its timeout covers it (refused when Codex cannot wait).
  const stopTimeout = stopTimeoutForInstall("codex", project, options.env ?? process.env);
  const hooks = installHooksBlock(configOld, configPath, command, configBefore, stopTimeout.value);
  const sameFile = configPath === userPath;
  const userOld = await readText(userPath);
  const userText = sameFile ? hooks.text : userOld;
  // In one file the trust block follows the hooks block, so that file exists by then.
  const trust = installTrustBlock(
    userText,
    userPath,
    configPath,
    hooks.trust,
    sameFile ? { exists: true, folderExists: true } : userBefore,
  );
  // Both edits are checked before either file is written; then all or nothing.
  const undo: (() => Promise<unknown>)[] = [];
  let ignored = false;
  try {
    if (hooks.changed) {
      undo.push(() => putBack(configPath, configOld, configBefore));
      await writeTextFile(configPath, hooks.text);
    }
    if (trust.changed) {
      undo.push(() => putBack(userPath, userOld, userBefore));
      await writeTextFile(userPath, trust.text);
    }
    if (target === "project" && existsSync(join(project, ".git"))) {
      ignored = await ensureGitignored(project, join(project, CODEX_PROJECT_STORE_FOLDER));
    }
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    // The Codex home this install made (to name it canonically) goes when nothing is in it.
    if (!userBefore.folderExists) await rmdir(dirname(userPath)).catch(() => undefined);
    throw error;
  }
  const changes = [...hooks.changes];
  if (trust.changed) changes.push(`trusted the ${hooks.trust.length} hooks in ${userPath}`);
  if (ignored) {
    changes.push(
      `added /${CODEX_PROJECT_STORE_FOLDER.split(sep).join("/")}/ to ${join(project, ".gitignore")}`,
    );
  }
  if (changes.length === 0) {
    out(`Codex hooks already installed in ${configPath}; nothing changed.`);
  } else {
    out(`Updated ${configPath}:`);
    for (const change of changes) out(`  ${change}`);
  }
  out(`Hook command: ${command}`);
  out(stopTimeout.line);
  const otherPath = target === "user" ? join(project, ".codex", "config.toml") : userPath;
  const otherCommand =
    otherPath === configPath ? null : installedCommand(await readText(otherPath));
  if (otherCommand !== null) {
    out(`Note: ${twiceInstalled([configPath, otherPath], [command, otherCommand])}`);
  }
  if (target === "project") {
    const userDoc = readToml(trust.text, userPath);
    if (!projectTrusted(userDoc, project)) {
      out(
        `Codex reads ${join(".codex", "config.toml")} only in projects you trust. Start codex in ${project} ` +
          `and accept its trust prompt, or add to ${userPath}:`,
      );
      out(`  [projects.${JSON.stringify(project)}]`);
      out('  trust_level = "trusted"');
    }
  }
  return { configPath, userConfigPath: userPath, changes, command };
}

/**
 * Removes exactly what `installCodex` added, giving every file back its bytes
 * from before the install: our blocks (the trust block first, as it was
 * written last), the final newline an install added, the `.gitignore` lines,
 * and a file (or folder) the install created and nothing else has used since.
 */
export async function uninstallCodex(
  options: CodexInstallOptions = {},
): Promise<CodexInstallResult> {
  const { target, project, userPath, configPath, out } = await locate(options, false);
  const changes: string[] = [];
  const userText = await readText(userPath);
  const trust = uninstallTrustBlock(userText, configPath);
  if (configPath === userPath) {
    const hooks = uninstallHooksBlock(trust.text);
    if (hooks.changed) changes.push("removed the todo-continuation hooks");
    if (trust.changed) changes.push(`removed their trust entries from ${userPath}`);
    if (hooks.changed || trust.changed) {
      await writeOrRemove(userPath, hooks.text, hooks.found ?? trust.found);
    }
  } else {
    const hooks = uninstallHooksBlock(await readText(configPath));
    if (hooks.changed) changes.push("removed the todo-continuation hooks");
    if (trust.changed) changes.push(`removed their trust entries from ${userPath}`);
    if (hooks.changed) await writeOrRemove(configPath, hooks.text, hooks.found);
    if (trust.changed) await writeOrRemove(userPath, trust.text, trust.found);
  }
  if (target === "project") {
    if (await removeGitignored(project, join(project, CODEX_PROJECT_STORE_FOLDER))) {
      changes.push(
        `removed /${CODEX_PROJECT_STORE_FOLDER.split(sep).join("/")}/ from ${join(project, ".gitignore")}`,
      );
    }
  }
  if (changes.length === 0) {
    out(`No todo-continuation hooks in ${configPath}; nothing changed.`);
  } else {
    out(`Updated ${configPath}:`);
    for (const change of changes) out(`  ${change}`);
  }
  return { configPath, userConfigPath: userPath, changes, command: "" };
}

/**
 * Puts a file back as a failed install found it: its old text, or no file
 * (and no folder, when the install made that too and it is empty again).
 */
async function putBack(path: string, old: string, before: FileBefore): Promise<void> {
  if (before.exists) {
    await writeTextFile(path, old);
    return;
  }
  await rm(path, { force: true });
  if (!before.folderExists) await rmdir(dirname(path)).catch(() => undefined);
}

/**
 * Writes what uninstall left of a file. Left empty, the file goes when the
 * install created it, and so does its folder when the install made that too
 * and nothing else has been put in it since.
 */
async function writeOrRemove(path: string, text: string, found: FoundBefore | null | undefined) {
  if (text !== "" || !removeWhenEmpty(found)) {
    await writeTextFile(path, text);
    return;
  }
  await rm(path, { force: true });
  if (found === "no file, no folder") await rmdir(dirname(path)).catch(() => undefined);
}
