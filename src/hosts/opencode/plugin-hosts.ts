/**
 * The programs that load our OpenCode plugin: OpenCode, and Kilo Code CLI, a
 * fork that fires the same plugin events and reads plugin files from folders
 * of its own. Install, uninstall and doctor take one of these; nothing else
 * about the plugin differs between them.
 */
export interface PluginHost {
  /** As `todo-continuation install <name>` takes it. */
  name: "opencode" | "kilo";
  /** As messages name the program. */
  title: string;
  /** The program on PATH, asked `--version` by the doctor. */
  bin: string;
  /** The release the end-to-end suite runs; older ones are reported by the doctor. */
  minVersion: string;
  /** How a user gets the program, for the doctor's fix line. */
  installHint: string;
  /** The project's config folder, where `plugins/` is read. */
  projectFolder: string;
  /** The user's config folder under $XDG_CONFIG_HOME (default ~/.config). */
  userFolder: string;
}

export const PLUGIN_HOSTS = {
  opencode: {
    name: "opencode",
    title: "OpenCode",
    bin: "opencode",
    minVersion: "1.18.33",
    installHint: "npm install -g opencode-ai",
    projectFolder: ".opencode",
    userFolder: "opencode",
  },
  // Kilo scans `.kilo/` and its legacy `.kilocode/`, never `.opencode/`; we write the canonical one.
  kilo: {
    name: "kilo",
    title: "Kilo",
    bin: "kilo",
    minVersion: "7.7.7",
    installHint: "npm install -g @kilocode/cli",
    projectFolder: ".kilo",
    userFolder: "kilo",
  },
} as const satisfies Record<string, PluginHost>;

export type PluginHostName = keyof typeof PLUGIN_HOSTS;

/** The host of that name; a clear error for any other. */
export function pluginHost(name: string | undefined): PluginHost {
  if (name === undefined) return PLUGIN_HOSTS.opencode;
  const host = Object.hasOwn(PLUGIN_HOSTS, name)
    ? (PLUGIN_HOSTS as Record<string, PluginHost>)[name]
    : undefined;
  if (host === undefined) {
    throw new Error(
      `host must be one of ${Object.keys(PLUGIN_HOSTS).join(", ")}, got ${JSON.stringify(name)}`,
    );
  }
  return host;
}

/** The first line of every plugin file we write for `host`: how uninstall and doctor know it is ours. */
export function pluginMarker(host: PluginHost): string {
  return `// todo-continuation: ${host.title} plugin, written by \`todo-continuation install ${host.name}\`.`;
}
