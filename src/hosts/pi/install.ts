import { existsSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { quoteInput } from "../../core/quote.js";
import { packageRootOf } from "../hook-kit/host-install.js";
import { readJsonFile, writeJsonFile } from "../hook-kit/settings-file.js";
import { EXTENSION_FILE, isOurPiEntry, piAgentDir } from "./settings.js";

export { isOurPiEntry, piAgentDir } from "./settings.js";

/** Which pi settings file: the project's `.pi/settings.json` or the user's. */
export type PiInstallTarget = "project" | "user";

export interface PiInstallOptions {
  /** Default "project": `<project>/.pi/settings.json`. */
  target?: PiInstallTarget;
  /** Default: the current folder. */
  projectDir?: string;
  /** Environment (HOME, PI_CODING_AGENT_DIR). Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Root of the installed package. Default: this module's package. */
  packageRoot?: string;
  /** Where the change report goes, one line per call. Default: stdout. */
  out?: (line: string) => void;
}

export interface PiInstallResult {
  settingsPath: string;
  /** What changed, one line each; empty when nothing did. */
  changes: string[];
  /** The `extensions` entry written (install), or null (uninstall). */
  entry: string | null;
  /** Whether the entry works from any clone of the project. */
  portable: boolean;
}

/** The settings file a target names. */
export function piSettingsPath(
  target: PiInstallTarget,
  project: string,
  env: Record<string, string | undefined>,
): string {
  return target === "user"
    ? join(piAgentDir(env), "settings.json")
    : join(project, ".pi", "settings.json");
}

/**
 * The `extensions` entry to write. pi resolves each entry against the folder
 * of the settings file that lists it, so a project install with the package
 * in the project's node_modules writes a path relative to `.pi/` (it works in
 * every clone after `npm install`); anything else gets the absolute path of
 * this package's extension (this machine only).
 */
export function piExtensionEntry(
  settingsPath: string,
  project: string,
  target: PiInstallTarget,
  packageRoot: string,
): { entry: string; portable: boolean } {
  const local = join(project, "node_modules", "todo-continuation");
  if (target === "project" && existsSync(join(local, "package.json"))) {
    const rel = relative(dirname(settingsPath), join(local, ...EXTENSION_FILE));
    return { entry: rel.split(sep).join("/"), portable: true };
  }
  const file = join(packageRoot, ...EXTENSION_FILE);
  if (!existsSync(file)) {
    throw new Error(
      `${file} does not exist; build the package first (npm run build), nothing was changed`,
    );
  }
  return { entry: file, portable: false };
}

type Json = Record<string, unknown>;

function checkSettings(value: unknown, path: string): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${path} must hold a JSON object; fix it first, nothing was changed`);
  }
  const extensions = (value as Json).extensions;
  if (extensions !== undefined && !Array.isArray(extensions)) {
    throw new Error(`${path}: "extensions" must be a list; fix it first, nothing was changed`);
  }
  return value as Json;
}

function defaults(options: PiInstallOptions) {
  const env = options.env ?? process.env;
  const project = resolve(options.projectDir ?? process.cwd());
  const target = options.target ?? "project";
  if (target !== "project" && target !== "user") {
    throw new Error(`target must be "project" or "user", got ${quoteInput(String(target))}`);
  }
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  return { env, project, target, out, path: piSettingsPath(target, project, env) };
}

/**
 * Adds this package's extension to pi's `extensions` setting, replacing any
 * older entry of ours (such as a `./node_modules/...` path pi could not
 * resolve), keeping every other entry and setting and the file's layout.
 * Idempotent: a second run changes nothing.
 */
export async function installPi(options: PiInstallOptions = {}): Promise<PiInstallResult> {
  const { project, target, out, path } = defaults(options);
  const { entry, portable } = piExtensionEntry(
    path,
    project,
    target,
    options.packageRoot ?? packageRootOf(),
  );
  const file = await readJsonFile(path);
  const settings = checkSettings(file.value, path);
  const before = (settings.extensions ?? []) as unknown[];
  const others = before.filter((e) => !isOurPiEntry(e, [entry]));
  const after = [...others, entry];
  const changes: string[] = [];
  if (JSON.stringify(before) !== JSON.stringify(after)) {
    const replaced = before.filter((e) => isOurPiEntry(e, [entry]) && e !== entry);
    await writeJsonFile(file, { ...settings, extensions: after });
    for (const old of replaced) changes.push(`replaced the extension entry ${JSON.stringify(old)}`);
    changes.push(
      before.includes(entry)
        ? `moved the extension entry ${JSON.stringify(entry)} last`
        : `added the extension entry ${JSON.stringify(entry)}`,
    );
  }
  if (changes.length === 0) {
    out(`pi extension already installed in ${path}; nothing changed.`);
  } else {
    out(`Updated ${path}:`);
    for (const change of changes) out(`  ${change}`);
  }
  out(`pi loads ${resolve(dirname(path), entry)}`);
  if (target === "project") {
    out(
      "pi 1.x loads a project's .pi/settings.json only once the project is trusted: " +
        "run /trust in pi once, or start it with --approve.",
    );
  }
  if (!portable && target === "project") {
    out(
      "Note: this path is on this machine only. Add todo-continuation to the project's " +
        "devDependencies and install again for an entry that works from any clone.",
    );
  }
  return { settingsPath: path, changes, entry, portable };
}

/** Removes only our entries from pi's `extensions` setting and prints what changed. */
export async function uninstallPi(options: PiInstallOptions = {}): Promise<PiInstallResult> {
  const { out, path } = defaults(options);
  const file = await readJsonFile(path);
  const settings = checkSettings(file.value, path);
  // This package's own path too: a checkout's folder need not be called todo-continuation.
  const ours = [join(options.packageRoot ?? packageRootOf(), ...EXTENSION_FILE)];
  const before = (settings.extensions ?? []) as unknown[];
  const kept = before.filter((e) => !isOurPiEntry(e, ours));
  const changes = before
    .filter((e) => isOurPiEntry(e, ours))
    .map((e) => `removed the extension entry ${JSON.stringify(e)}`);
  if (changes.length > 0) {
    const { extensions: _dropped, ...rest } = settings;
    await writeJsonFile(file, kept.length > 0 ? { ...rest, extensions: kept } : rest);
    out(`Updated ${path}:`);
    for (const change of changes) out(`  ${change}`);
  } else {
    out(
      `No todo-continuation extension in ${path}${file.exists ? "" : " (no such file)"}; nothing changed.`,
    );
  }
  return { settingsPath: path, changes, entry: null, portable: false };
}
