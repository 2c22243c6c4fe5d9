import { resolve } from "node:path";
import type { HostInstaller } from "../installer/row.js";
import { installPi, type PiInstallOptions, uninstallPi } from "./install.js";

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

/** `install pi` / `uninstall pi` (its row is in ../installer/table.ts). */
export const piInstaller: HostInstaller<PiInstallOptions> = {
  usage: PI_INSTALL_USAGE,
  options: (args, cwd) => ({
    target: args.target as "project" | "user",
    projectDir: resolve(cwd, args.values["project-dir"] ?? "."),
  }),
  install: installPi,
  uninstall: uninstallPi,
};
