import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { quoteInput } from "../../core/quote.js";
import {
  installOpenCode,
  type OpenCodeInstallOptions,
  uninstallOpenCode,
} from "../../hosts/opencode/install.js";
import { type OpenCodePluginOptions, parseOpenCodeOptions } from "../../hosts/opencode/options.js";
import {
  PLUGIN_HOSTS,
  type PluginHost,
  type PluginHostName,
} from "../../hosts/opencode/plugin-hosts.js";
import type { CliIo } from "../io.js";
import { runInstaller } from "./install-runner.js";

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

/** Parses `install|uninstall opencode` (or `kilo`) arguments; `argv` may start with the host. */
export function parseOpenCodeInstallArgs(
  argv: readonly string[],
  cwd: string,
  host: PluginHostName = "opencode",
): OpenCodeInstallOptions & { help: boolean } {
  const args = argv[0] === host ? argv.slice(1) : [...argv];
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      project: { type: "boolean" },
      user: { type: "boolean" },
      "project-dir": { type: "string" },
      preset: { type: "string" },
      "countdown-ms": { type: "string" },
      "store-dir": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (positionals.length > 0) {
    throw new Error(`unexpected argument ${quoteInput(positionals[0] as string)}`);
  }
  if (values.project && values.user) {
    throw new Error("--project and --user name two config folders; pass only one");
  }
  const pluginOptions: OpenCodePluginOptions = {};
  if (values.preset !== undefined) pluginOptions.preset = values.preset as never;
  if (values["countdown-ms"] !== undefined) {
    const raw = values["countdown-ms"];
    const ms = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(ms)) {
      throw new Error(
        `--countdown-ms must be a whole number of milliseconds, got ${quoteInput(raw)}`,
      );
    }
    pluginOptions.countdownMs = ms;
  }
  if (values["store-dir"] !== undefined) pluginOptions.storeDir = resolve(cwd, values["store-dir"]);
  // Bad values are part of a bad command line: refused here, before anything runs.
  parseOpenCodeOptions(pluginOptions);
  return {
    host,
    target: values.user ? "user" : "project",
    projectDir: resolve(cwd, values["project-dir"] ?? "."),
    pluginOptions,
    help: values.help === true,
  };
}

/** `install opencode` / `uninstall opencode` (or `kilo`) from a command line; resolves to the exit code. */
export function runOpenCodeInstallCommand(
  action: "install" | "uninstall",
  argv: readonly string[],
  io: CliIo,
  host: PluginHostName = "opencode",
): Promise<number> {
  return runInstaller(
    {
      host,
      usage: pluginInstallUsage(PLUGIN_HOSTS[host]),
      parse: (args, cwd) => parseOpenCodeInstallArgs(args, cwd, host),
      install: installOpenCode,
      uninstall: uninstallOpenCode,
    },
    action,
    argv,
    io,
  );
}
