import { resolve } from "node:path";
import { quoteInput } from "../../core/quote.js";
import type { HostInstaller } from "../installer/row.js";
import { installOpenCode, type OpenCodeInstallOptions, uninstallOpenCode } from "./install.js";
import { type OpenCodePluginOptions, parseOpenCodeOptions } from "./options.js";

export const OPENCODE_INSTALL_USAGE = `Usage: todo-continuation install opencode [--project | --user] [options]
       todo-continuation uninstall opencode [--project | --user]

Writes a small plugin file into OpenCode's plugin folder that loads this
package's plugin (nothing is downloaded), or removes only that file.

Targets:
  --project             <project>/.opencode/plugins/ (default)
  --user                $XDG_CONFIG_HOME/opencode/plugins/ (default ~/.config/opencode/plugins/)
Options:
  --project-dir <path>  the project (default: the current folder)
  --preset <name>       default, typeclaw, parley, omo or pi (default: default)
  --countdown-ms <ms>   delay before each nudge, shown as a toast (default: the preset's)
  --store-dir <path>    where lists and state live (default: $TODO_CONTINUATION_DIR,
                        else $XDG_STATE_HOME/todo-continuation)
`;

/** `install opencode` / `uninstall opencode` (its row is in ../installer/table.ts). */
export const openCodeInstaller: HostInstaller<OpenCodeInstallOptions> = {
  usage: OPENCODE_INSTALL_USAGE,
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
      target: args.target as "project" | "user",
      projectDir: resolve(cwd, args.values["project-dir"] ?? "."),
      pluginOptions,
    };
  },
  install: installOpenCode,
  uninstall: uninstallOpenCode,
};
