import type { InstallerRow } from "./row.js";

const HOOK_OPTIONS = ["project-dir", "preset", "entry"];
const PLUGIN_OPTIONS = ["project-dir", "preset", "countdown-ms", "store-dir"];

/** A row's flags: `targets` (the first is the default) and the options that take a value. */
function flags(targetsName: string, options: string[], targets = ["project", "user"]) {
  return { targets, targetsName, options };
}

/** A row with no aliases; `load` and `doctor` import the host's code only when called. */
function row(
  host: string,
  flags: InstallerRow["flags"],
  code: Pick<InstallerRow, "load" | "doctor">,
): InstallerRow {
  return { host, aliases: [], flags, ...code };
}

/**
 * Every host `install`, `uninstall` and `doctor` know, one row each: its
 * names, the flags its installer takes, and where its code is (loaded only
 * when a command runs for it). A new host adds one row here.
 */
export const INSTALLERS: readonly InstallerRow[] = [
  row(
    "claude-code",
    flags("settings files", [...HOOK_OPTIONS, "claude-version"], ["project", "local", "user"]),
    {
      load: async () => (await import("../claude-code/installer.js")).claudeCodeInstaller,
      doctor: async () => (await import("../claude-code/doctor.js")).claudeCodeDoctor,
    },
  ),
  row("codex", flags("config files", HOOK_OPTIONS), {
    load: async () => (await import("../codex/installer.js")).codexInstaller,
    doctor: async () => (await import("../codex/doctor.js")).codexDoctor,
  }),
  row("copilot", flags("hooks folders", HOOK_OPTIONS), {
    load: async () => (await import("../copilot/installer.js")).copilotInstaller,
    doctor: async () => (await import("../copilot/doctor.js")).copilotDoctor,
  }),
  row("gemini", flags("settings files", HOOK_OPTIONS), {
    load: async () => (await import("../gemini/installer.js")).geminiInstaller,
    doctor: async () => (await import("../gemini/doctor.js")).geminiDoctor,
  }),
  row("opencode", flags("config folders", PLUGIN_OPTIONS), {
    load: async () => (await import("../opencode/installer.js")).openCodeInstaller,
    doctor: async () => (await import("../opencode/doctor.js")).openCodeDoctor,
  }),
  row("kilo", flags("config folders", PLUGIN_OPTIONS), {
    load: async () => (await import("../opencode/installer.js")).kiloInstaller,
    doctor: async () => (await import("../opencode/doctor.js")).kiloDoctor,
  }),
  row("pi", flags("settings files", ["project-dir"]), {
    load: async () => (await import("../pi/installer.js")).piInstaller,
    doctor: async () => (await import("../pi/doctor.js")).piDoctor,
  }),
  row("qwen", flags("settings files", HOOK_OPTIONS), {
    load: async () => (await import("../qwen/installer.js")).qwenInstaller,
    doctor: async () => (await import("../qwen/doctor.js")).qwenDoctor,
  }),
];

/** The row for a name the user typed (the host's own or an alias), or undefined. */
export function installerRow(name: string | undefined): InstallerRow | undefined {
  if (name === undefined) return undefined;
  return INSTALLERS.find((row) => row.host === name || row.aliases.includes(name));
}
