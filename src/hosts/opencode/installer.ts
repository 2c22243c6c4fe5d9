import { resolve } from "node:path";
import { quoteInput } from "../../core/quote.js";
import type { HostInstaller } from "../installer/row.js";
import { installOpenCode, type OpenCodeInstallOptions, uninstallOpenCode } from "./install.js";
import { type OpenCodePluginOptions, parseOpenCodeOptions } from "./options.js";
import { PLUGIN_HOSTS, type PluginHost } from "./plugin-hosts.js";

/** The usage text of `install <host>` for OpenCode or Kilo, which take the same plugin. */
export function pluginInstallUsage(host: PluginHost): string {
  return `Usage: todo-continuation install ${host.name} [--project | --user] [options]
       todo-continuation uninstall ${host.name} [--project | --user]

Writes a small plugin file into ${host.title}'s plugin folder that loads this
package's OpenCode plugin (nothing is downloaded), or removes only that file.

Targets:
  --project             <project>/${host.projectFolder}/plugins/ (default)
  --user                $XDG_CONFIG_HOME/${host.userFolder}/plugins/ (default ~/.config/${host.userFolder}/plugins/)
Options:
  --project-dir <path>  the project (default: the current folder)
  --preset <name>       default, typeclaw, parley, omo or pi (default: default)
  --countdown-ms <ms>   delay before each nudge, shown as a toast (default: the preset's)
  --store-dir <path>    where lists and state live (default: $TODO_CONTINUATION_DIR,
                        else $XDG_STATE_HOME/todo-continuation)
`;
}

export const OPENCODE_INSTALL_USAGE = pluginInstallUsage(PLUGIN_HOSTS.opencode);

/** `install opencode` / `uninstall opencode` (or `kilo`; their rows are in ../installer/table.ts). */
function pluginInstaller(host: PluginHost): HostInstaller<OpenCodeInstallOptions> {
  return {
    usage: pluginInstallUsage(host),
    options(args, cwd) {
      const { preset, "countdown-ms": countdown, "store-dir": storeDir } = args.values;
      const pluginOptions: OpenCodePluginOptions = {};
      if (preset !== undefined) pluginOptions.preset = preset as never;
      if (countdown !== undefined) {
        const ms = /^\d+$/.test(countdown) ? Number(countdown) : Number.NaN;
        if (!Number.isSafeInteger(ms)) {
          throw new Error(
            `--countdown-ms must be a whole number of milliseconds, got ${quoteInput(countdown)}`,
          );
        }
        pluginOptions.countdownMs = ms;
      }
      if (storeDir !== undefined) pluginOptions.storeDir = resolve(cwd, storeDir);
      parseOpenCodeOptions(pluginOptions);
      return {
        host: host.name,
        target: args.target as "project" | "user",
        projectDir: resolve(cwd, args.values["project-dir"] ?? "."),
        pluginOptions,
      };
    },
    install: installOpenCode,
    uninstall: uninstallOpenCode,
  };
}

export const openCodeInstaller = pluginInstaller(PLUGIN_HOSTS.opencode);
export const kiloInstaller = pluginInstaller(PLUGIN_HOSTS.kilo);
