import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { quoteInput } from "../../core/quote.js";
import { installPi, type PiInstallOptions, uninstallPi } from "../../hosts/pi/install.js";
import type { CliIo } from "../io.js";
import { runInstaller } from "./install-runner.js";

export const PI_INSTALL_USAGE = `Usage: todo-continuation install pi [--project | --user] [options]
       todo-continuation uninstall pi [--project | --user]

Adds this package's extension to pi's "extensions" setting (nothing is
downloaded), or removes only that entry. pi resolves the entry against the
settings file's folder; the path written is one pi finds.

Targets:
  --project             <project>/.pi/settings.json (default); a relative entry when the
                        package is in the project's node_modules
  --user                $PI_CODING_AGENT_DIR/settings.json (default ~/.pi/agent/settings.json)
Options:
  --project-dir <path>  the project (default: the current folder)

The extension reads its options from the environment (TODO_CONTINUATION_PRESET,
TODO_CONTINUATION_DIALECT, TODO_CONTINUATION_DIR).
`;

/** Parses `install|uninstall pi` arguments; `argv` may start with `pi`. */
export function parsePiInstallArgs(
  argv: readonly string[],
  cwd: string,
): PiInstallOptions & { help: boolean } {
  const args = argv[0] === "pi" ? argv.slice(1) : [...argv];
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      project: { type: "boolean" },
      user: { type: "boolean" },
      "project-dir": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (positionals.length > 0) {
    throw new Error(`unexpected argument ${quoteInput(positionals[0] as string)}`);
  }
  if (values.project && values.user) {
    throw new Error("--project and --user name two settings files; pass only one");
  }
  return {
    target: values.user ? "user" : "project",
    projectDir: resolve(cwd, values["project-dir"] ?? "."),
    help: values.help === true,
  };
}

/** `install pi` / `uninstall pi` from a command line; resolves to the exit code. */
export function runPiInstallCommand(
  action: "install" | "uninstall",
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  return runInstaller(
    {
      host: "pi",
      usage: PI_INSTALL_USAGE,
      parse: parsePiInstallArgs,
      install: installPi,
      uninstall: uninstallPi,
    },
    action,
    argv,
    io,
  );
}
