import type { InstallerRow } from "./row.js";

const HOOK_OPTIONS = ["project-dir", "preset", "entry"];
const PLUGIN_OPTIONS = ["project-dir", "preset", "countdown-ms", "store-dir"];

/** A row's flags: `targets` (the first is the default) and the options that take a value. */
function flags(targetsName: string, options: string[], targets = ["project", "user"]) {
  return { targets, targetsName, options };
}

/**
 * Every host `install`, `uninstall` and `doctor` know, one row each: its
 * names, the flags its installer takes, and where its code is (loaded only
 * when a command runs for it). A new host adds one row here.
 */
export const INSTALLERS: readonly InstallerRow[] = [
  {
    host: "claude-code",
    aliases: [],
    flags: flags(
      "settings files",
      [...HOOK_OPTIONS, "claude-version"],
      ["project", "local", "user"],
    ),
    load: async () => (await import("../claude-code/installer.js")).claudeCodeInstaller,
    doctor: async () => (await import("../claude-code/doctor.js")).claudeCodeDoctor,
  },
  {
    host: "codex",
    aliases: [],
    flags: flags("config files", HOOK_OPTIONS),
    load: async () => (await import("../codex/installer.js")).codexInstaller,
    doctor: async () => (await import("../codex/doctor.js")).codexDoctor,
  },
  {
    host: "copilot",
    aliases: [],
    flags: flags("hooks folders", HOOK_OPTIONS),
    load: async () => (await import("../copilot/installer.js")).copilotInstaller,
    doctor: async () => (await import("../copilot/doctor.js")).copilotDoctor,
  },
  {
    host: "gemini",
    aliases: [],
    flags: flags("settings files", HOOK_OPTIONS),
    load: async () => (await import("../gemini/installer.js")).geminiInstaller,
    doctor: async () => (await import("../gemini/doctor.js")).geminiDoctor,
  },
  {
    host: "opencode",
    aliases: [],
    flags: flags("config folders", PLUGIN_OPTIONS),
    load: async () => (await import("../opencode/installer.js")).openCodeInstaller,
    doctor: async () => (await import("../opencode/doctor.js")).openCodeDoctor,
  },
  {
    host: "kilo",
    aliases: [],
    flags: flags("config folders", PLUGIN_OPTIONS),
    load: async () => (await import("../opencode/installer.js")).kiloInstaller,
    doctor: async () => (await import("../opencode/doctor.js")).kiloDoctor,
  },
  {
    host: "pi",
    aliases: [],
    flags: flags("settings files", ["project-dir"]),
    load: async () => (await import("../pi/installer.js")).piInstaller,
    doctor: async () => (await import("../pi/doctor.js")).piDoctor,
  },
  {
    host: "qwen",
    aliases: [],
    flags: flags("settings files", HOOK_OPTIONS),
    load: async () => (await import("../qwen/installer.js")).qwenInstaller,
    doctor: async () => (await import("../qwen/doctor.js")).qwenDoctor,
  },
];

/** The row for a name the user typed (the host's own or an alias), or undefined. */
export function installerRow(name: string | undefined): InstallerRow | undefined {
  if (name === undefined) return undefined;
  return INSTALLERS.find((row) => row.host === name || row.aliases.includes(name));
}
