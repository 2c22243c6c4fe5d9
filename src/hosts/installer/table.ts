import type { InstallerRow } from "./row.js";

/**
 * Every host `install`, `uninstall` and `doctor` know, one row each: its
 * names, the flags its installer takes, and where its code is (loaded only
 * when a command runs for it). A new host adds one row here.
 */
export const INSTALLERS: readonly InstallerRow[] = [
  {
    host: "claude-code",
    aliases: [],
    flags: {
      targets: ["project", "local", "user"],
      targetsName: "settings files",
      options: ["project-dir", "preset", "entry", "claude-version"],
    },
    load: async () => (await import("../claude-code/installer.js")).claudeCodeInstaller,
    doctor: async () => (await import("../claude-code/doctor.js")).claudeCodeDoctor,
  },
  {
    host: "codex",
    aliases: [],
    flags: {
      targets: ["project", "user"],
      targetsName: "config files",
      options: ["project-dir", "preset", "entry"],
    },
    load: async () => (await import("../codex/installer.js")).codexInstaller,
    doctor: async () => (await import("../codex/doctor.js")).codexDoctor,
  },
  {
    host: "copilot",
    aliases: [],
    flags: {
      targets: ["project", "user"],
      targetsName: "hooks folders",
      options: ["project-dir", "preset", "entry"],
    },
    load: async () => (await import("../copilot/installer.js")).copilotInstaller,
    doctor: async () => (await import("../copilot/doctor.js")).copilotDoctor,
  },
  {
    host: "gemini",
    aliases: [],
    flags: {
      targets: ["project", "user"],
      targetsName: "settings files",
      options: ["project-dir", "preset", "entry"],
    },
    load: async () => (await import("../gemini/installer.js")).geminiInstaller,
    doctor: async () => (await import("../gemini/doctor.js")).geminiDoctor,
  },
  {
    host: "opencode",
    aliases: [],
    flags: {
      targets: ["project", "user"],
      targetsName: "config folders",
      options: ["project-dir", "preset", "countdown-ms", "store-dir"],
    },
    load: async () => (await import("../opencode/installer.js")).openCodeInstaller,
    doctor: async () => (await import("../opencode/doctor.js")).openCodeDoctor,
  },
  {
    host: "kilo",
    aliases: [],
    flags: {
      targets: ["project", "user"],
      targetsName: "config folders",
      options: ["project-dir", "preset", "countdown-ms", "store-dir"],
    },
    load: async () => (await import("../opencode/installer.js")).kiloInstaller,
    doctor: async () => (await import("../opencode/doctor.js")).kiloDoctor,
  },
  {
    host: "pi",
    aliases: [],
    flags: {
      targets: ["project", "user"],
      targetsName: "settings files",
      options: ["project-dir"],
    },
    load: async () => (await import("../pi/installer.js")).piInstaller,
    doctor: async () => (await import("../pi/doctor.js")).piDoctor,
  },
  {
    host: "qwen",
    aliases: [],
    flags: {
      targets: ["project", "user"],
      targetsName: "settings files",
      options: ["project-dir", "preset", "entry"],
    },
    load: async () => (await import("../qwen/installer.js")).qwenInstaller,
    doctor: async () => (await import("../qwen/doctor.js")).qwenDoctor,
  },
];

/** The row for a name the user typed (the host's own or an alias), or undefined. */
export function installerRow(name: string | undefined): InstallerRow | undefined {
  if (name === undefined) return undefined;
  return INSTALLERS.find((row) => row.host === name || row.aliases.includes(name));
}
