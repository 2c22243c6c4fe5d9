import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { quoteInput } from "../../core/quote.js";
import {
  installOpenCode,
  type OpenCodeInstallOptions,
  uninstallOpenCode,
} from "../../hosts/opencode/install.js";
import { type OpenCodePluginOptions, parseOpenCodeOptions } from "../../hosts/opencode/options.js";
import type { CliIo } from "../io.js";
import { runInstaller } from "./install-runner.js";

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

/** Parses `install|uninstall opencode` arguments; `argv` may start with `opencode`. */
export function parseOpenCodeInstallArgs(
  argv: readonly string[],
  cwd: string,
): OpenCodeInstallOptions & { help: boolean } {
  const args = argv[0] === "opencode" ? argv.slice(1) : [...argv];
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
    target: values.user ? "user" : "project",
    projectDir: resolve(cwd, values["project-dir"] ?? "."),
    pluginOptions,
    help: values.help === true,
  };
}

/** `install opencode` / `uninstall opencode` from a command line; resolves to the exit code. */
export function runOpenCodeInstallCommand(
  action: "install" | "uninstall",
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  return runInstaller(
    {
      host: "opencode",
      usage: OPENCODE_INSTALL_USAGE,
      parse: parseOpenCodeInstallArgs,
      install: installOpenCode,
      uninstall: uninstallOpenCode,
    },
    action,
    argv,
    io,
  );
}
