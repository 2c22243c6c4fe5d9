import { existsSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { packageRootOf } from "../hook-kit/host-install.js";
import { readIfPresent } from "../hook-kit/own-file.js";
import { writeTextFile } from "../hook-kit/settings-file.js";
import { userHome } from "../hook-kit/user-dir.js";
import { type OpenCodePluginOptions, parseOpenCodeOptions } from "./options.js";
import { type PluginHost, type PluginHostName, pluginHost, pluginMarker } from "./plugin-hosts.js";

/** Which config folder: the project's (`.opencode/`, `.kilo/`) or the user's. */
export type OpenCodeInstallTarget = "project" | "user";

export interface OpenCodeInstallOptions {
  /** The program that loads the plugin. Default "opencode". */
  host?: PluginHostName;
  /** Default "project": `<project>/.opencode/plugins/` (Kilo: `.kilo/plugins/`). */
  target?: OpenCodeInstallTarget;
  /** Default: the current folder. */
  projectDir?: string;
  /** Environment (HOME, XDG_CONFIG_HOME). Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Plugin options written into the plugin file (validated here). */
  pluginOptions?: OpenCodePluginOptions;
  /** Root of the installed package. Default: this module's package. */
  packageRoot?: string;
  /** Where the change report goes, one line per call. Default: stdout. */
  out?: (line: string) => void;
}

export interface OpenCodeInstallResult {
  pluginPath: string;
  /** What changed, one line each; empty when nothing did. */
  changes: string[];
  /** The module the plugin file imports (install), or null (uninstall). */
  specifier: string | null;
  /** Whether the plugin file works from any clone of the project. */
  portable: boolean;
}

/** The file's name in OpenCode's plugin folder. */
export const OPENCODE_PLUGIN_FILE = "todo-continuation.js";

/** The package subpath that exports the plugin. */
const PACKAGE_SPECIFIER = "todo-continuation/opencode";

/** OpenCode and Kilo load `plugin/` and `plugins/` alike; we write to the second and clean both. */
const PLUGIN_FOLDERS = ["plugins", "plugin"] as const;

/** The host's config folder for a target: `<project>/.opencode` or `$XDG_CONFIG_HOME/opencode` (Kilo: `.kilo`, `kilo`). */
export function openCodeConfigDir(
  target: OpenCodeInstallTarget,
  project: string,
  env: Record<string, string | undefined>,
  host: PluginHost = pluginHost("opencode"),
): string {
  if (target === "project") return join(project, host.projectFolder);
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(userHome(env), ".config"), host.userFolder);
}

/**
 * The module the plugin file imports. The package name when OpenCode can
 * resolve it from the plugin folder (node_modules above it): that survives
 * upgrades and, inside the project, any clone. Otherwise this package's built
 * entry by absolute path, which works offline but only on this machine.
 */
export function pluginSpecifier(
  pluginDir: string,
  project: string,
  packageRoot: string,
): { specifier: string; portable: boolean } {
  for (let dir = pluginDir; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", "todo-continuation", "package.json"))) {
      const inside =
        !relative(project, dir).startsWith("..") && !isAbsolute(relative(project, dir));
      return { specifier: PACKAGE_SPECIFIER, portable: inside };
    }
    if (dirname(dir) === dir) break;
  }
  const entry = join(packageRoot, "dist", "hosts", "opencode", "index.js");
  if (!existsSync(entry)) {
    throw new Error(
      `${entry} does not exist; build the package first (npm run build), nothing was changed`,
    );
  }
  return { specifier: pathToFileURL(entry).href, portable: false };
}

/**
 * Ours in the user's and the project's plugin folder: the host loads both, and one copy acts
 * (the project's; see copies.ts).
 */
export function twiceInstalled(host: PluginHost, folders: readonly string[]): string {
  return `todo-continuation's plugin is in both ${folders.join(" and ")}: ${host.title} loads both, and only the project's acts (the other is loaded for nothing). Keep one.`;
}

/** The plugin file: imports our plugin and passes it the options chosen at install time. */
export function pluginFileContent(
  specifier: string,
  options: OpenCodePluginOptions,
  host: PluginHost = pluginHost("opencode"),
  target: OpenCodeInstallTarget = "project",
): string {
  return [
    pluginMarker(host),
    `// \`todo-continuation uninstall ${host.name}\` removes it. ${host.title} calls every export of this`,
    "// file as a plugin, so it exports only that. Options: see the todo-continuation README.",
    `import { TodoContinuation as plugin } from ${JSON.stringify(specifier)};`,
    "",
    `const options = ${JSON.stringify(options)};`,
    "",
    `// "${target}": the folder it is in. With ours in both, the project's copy acts.`,
    `export const TodoContinuation = (input, extra) => plugin(input, { ...options, ...(extra ?? {}) }, ${JSON.stringify(target)});`,
    "",
  ].join("\n");
}

function defaults(options: OpenCodeInstallOptions) {
  const env = options.env ?? process.env;
  const project = resolve(options.projectDir ?? process.cwd());
  const target = options.target ?? "project";
  if (target !== "project" && target !== "user") {
    throw new Error(`target must be "project" or "user", got ${JSON.stringify(target)}`);
  }
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const host = pluginHost(options.host);
  const configDir = openCodeConfigDir(target, project, env, host);
  return { env, project, target, out, configDir, host, marker: pluginMarker(host) };
}

/**
 * Writes our plugin file into the host's plugin folder (no network: it
 * imports the package already on this machine) and prints what changed.
 * Idempotent: a second run with the same options changes nothing. A file of
 * the same name that we did not write is left alone, with an error.
 */
export async function installOpenCode(
  options: OpenCodeInstallOptions = {},
): Promise<OpenCodeInstallResult> {
  const pluginOptions = options.pluginOptions ?? {};
  parseOpenCodeOptions(pluginOptions);
  const { project, out, configDir, host, marker, env, target } = defaults(options);
  const pluginDir = join(configDir, "plugins");
  const pluginPath = join(pluginDir, OPENCODE_PLUGIN_FILE);
  const { specifier, portable } = pluginSpecifier(
    pluginDir,
    project,
    options.packageRoot ?? packageRootOf(),
  );
  const content = pluginFileContent(specifier, pluginOptions, host, target);
  const existing = await readIfPresent(pluginPath);
  if (existing !== null && !existing.startsWith(marker)) {
    throw new Error(
      `${pluginPath} exists and was not written by todo-continuation; move it away first, nothing was changed`,
    );
  }
  const changes: string[] = [];
  if (existing !== content) {
    await writeTextFile(pluginPath, content);
    changes.push(`${existing === null ? "added" : "updated"} ${pluginPath}`);
  }
  const legacy = join(configDir, "plugin", OPENCODE_PLUGIN_FILE);
  if ((await readIfPresent(legacy))?.startsWith(marker)) {
    await unlink(legacy);
    changes.push(`removed the older copy ${legacy}`);
  }
  if (changes.length === 0) {
    out(`${host.title} plugin already installed at ${pluginPath}; nothing changed.`);
  } else {
    for (const change of changes) out(change.charAt(0).toUpperCase() + change.slice(1));
  }
  out(`The plugin imports ${specifier}`);
  const otherTarget = target === "user" ? "project" : "user";
  const other = join(openCodeConfigDir(otherTarget, project, env, host), "plugins");
  if ((await readIfPresent(join(other, OPENCODE_PLUGIN_FILE)))?.startsWith(marker)) {
    out(`Note: ${twiceInstalled(host, [pluginDir, other])}`);
  }
  if (!portable && options.target !== "user") {
    out(
      "Note: this path is on this machine only. Add todo-continuation to the project's " +
        "devDependencies and install again for a plugin file that works from any clone.",
    );
  }
  return { pluginPath, changes, specifier, portable };
}

/** Removes only files we wrote from the host's plugin folders and prints what changed. */
export async function uninstallOpenCode(
  options: OpenCodeInstallOptions = {},
): Promise<OpenCodeInstallResult> {
  const { out, configDir, marker } = defaults(options);
  const pluginPath = join(configDir, "plugins", OPENCODE_PLUGIN_FILE);
  const changes: string[] = [];
  for (const folder of PLUGIN_FOLDERS) {
    const path = join(configDir, folder, OPENCODE_PLUGIN_FILE);
    const text = await readIfPresent(path);
    if (text === null) continue;
    if (!text.startsWith(marker)) {
      out(`Left ${path} alone: todo-continuation did not write it.`);
      continue;
    }
    await unlink(path);
    changes.push(`removed ${path}`);
  }
  if (changes.length === 0) out(`No todo-continuation plugin in ${configDir}; nothing changed.`);
  else for (const change of changes) out(change.charAt(0).toUpperCase() + change.slice(1));
  return { pluginPath, changes, specifier: null, portable: false };
}
