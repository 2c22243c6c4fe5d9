import { quoteInput } from "../../core/quote.js";
import { runInstaller } from "../../hosts/installer/run.js";
import { INSTALLERS, installerRow } from "../../hosts/installer/table.js";
import type { CommandSpec } from "../command.js";
import { UsageError } from "../errors.js";
import { forwardGlobals } from "./hook-command.js";

type Action = "install" | "uninstall";

const HOSTS = INSTALLERS.map((row) => row.host);

/** `install <host>` and `uninstall <host>`: one command over the rows of the install table. */
function installCommand(action: Action): CommandSpec {
  const verb = action === "install" ? "Install" : "Remove";
  return {
    name: action,
    summary:
      action === "install"
        ? `Install the integration into a host's settings: ${HOSTS.join(", ")}`
        : "Remove the integration from a host's settings, leaving everything else",
    usage: [`${action} <${HOSTS.join("|")}> [options]`],
    details: [
      `${verb}s only this package's hooks or plugin and prints what changed; running it twice`,
      `changes nothing the second time. Run \`${action} <host> --help\` for the host's options.`,
    ],
    args: { min: 1, max: Number.MAX_SAFE_INTEGER },
    passthrough: true,
    examples: [
      `${action} claude-code`,
      `${action} claude-code --user`,
      `${action} opencode`,
      `${action} pi --user`,
    ],
    async run(ctx) {
      const [host, ...rest] = ctx.positionals;
      const row = installerRow(host);
      if (row === undefined) {
        throw new UsageError(
          host === undefined
            ? `${action}: name the host, one of ${HOSTS.join(", ")}`
            : `${action}: unknown host ${quoteInput(host)}; hosts: ${HOSTS.join(", ")}`,
          action,
        );
      }
      const forwarded = action === "install" ? forwardGlobals(ctx.global, ["preset"]) : [];
      // A plugin told where the store is (OpenCode's): a global --dir means that store.
      if (action === "install" && row.flags.options.includes("store-dir") && ctx.global.dir) {
        forwarded.push("--store-dir", ctx.global.dir);
      }
      return runInstaller(row, action, [...rest, ...forwarded], ctx.io);
    },
  };
}

export const installCommandSpec = installCommand("install");
export const uninstallCommandSpec = installCommand("uninstall");
