import type { PluginHostProgram } from "../opencode/opencode-host.js";

/**
 * Kilo Code CLI, a fork of OpenCode that loads the same plugins. 7.7.7 is the
 * newest release whose Linux binary (`@kilocode/cli-linux-x64`) is on the
 * registry: 7.8.1's postinstall finds no `@kilocode/cli-linux-x64@7.8.1`.
 */
export const KILO: PluginHostProgram = {
  install: "kilo",
  title: "Kilo",
  pkg: "@kilocode/cli",
  version: "7.7.7",
  bin: "kilo",
  configFile: "kilo.json",
  // Kilo adds `@kilocode/plugin` at its own version to its config folders in the background, never
  // waiting for it; no such version is published (7.3.1 is the newest), so there is nothing to seed.
  pluginPackage: null,
  directoryHeader: "x-kilo-directory",
  env: {
    KILO_DISABLE_AUTOUPDATE: "1",
    KILO_DISABLE_MODELS_FETCH: "1",
    KILO_DISABLE_LSP_DOWNLOAD: "1",
    KILO_DISABLE_SHARE: "1",
    KILO_DISABLE_CLAUDE_CODE: "1",
    KILO_DISABLE_EXTERNAL_SKILLS: "1",
    KILO_DISABLE_SESSION_INGEST: "1",
    KILO_DISABLE_CODEBASE_INDEXING: "1",
    KILO_DISABLE_PRESENCE: "1",
    KILO_TELEMETRY_LEVEL: "off",
  },
};
