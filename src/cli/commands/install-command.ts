import { quoteInput } from "../../core/quote.js";
import type { CommandSpec } from "../command.js";
import { UsageError } from "../errors.js";
import type { CliIo } from "../io.js";
import { forwardGlobals } from "./hook-command.js";

type Action = "install" | "uninstall";

/** Each host's installer: `install <host> [options]`. */
const INSTALLERS: Record<
  string,
  (action: Action, argv: readonly string[], io: CliIo) => Promise<number>
> = {
  "claude-code": async (action, argv, io) =>
    (await import("./install-claude-code.js")).runInstallCommand(action, argv, io),
  codex: async (action, argv, io) =>
    (await import("./install-codex.js")).runCodexInstallCommand(action, argv, io),
  gemini: async (action, argv, io) =>
    (await import("./install-gemini.js")).runGeminiInstallCommand(action, argv, io),
  opencode: async (action, argv, io) =>
    (await import("./install-opencode.js")).runOpenCodeInstallCommand(action, argv, io),
  pi: async (action, argv, io) =>
    (await import("./install-pi.js")).runPiInstallCommand(action, argv, io),
  qwen: async (action, argv, io) =>
    (await import("./install-qwen.js")).runQwenInstallCommand(action, argv, io),
};

function installCommand(action: Action): CommandSpec {
  const verb = action === "install" ? "Install" : "Remove";
  return {
    name: action,
    summary:
      action === "install"
        ? `Install the integration into a host's settings: ${Object.keys(INSTALLERS).join(", ")}`
        : "Remove the integration from a host's settings, leaving everything else",
    usage: [`${action} <${Object.keys(INSTALLERS).join("|")}> [options]`],
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
      const installer = host === undefined ? undefined : INSTALLERS[host];
      if (installer === undefined) {
        throw new UsageError(
          host === undefined
            ? `${action}: name the host, one of ${Object.keys(INSTALLERS).join(", ")}`
            : `${action}: unknown host ${quoteInput(host)}; hosts: ${Object.keys(INSTALLERS).join(", ")}`,
          action,
        );
      }
      const forwarded = action === "install" ? forwardGlobals(ctx.global, ["preset"]) : [];
      // OpenCode's plugin is told where the store is; a global --dir means that store.
      if (action === "install" && host === "opencode" && ctx.global.dir !== undefined) {
        forwarded.push("--store-dir", ctx.global.dir);
      }
      return installer(action, [host as string, ...rest, ...forwarded], ctx.io);
    },
  };
}

export const installCommandSpec = installCommand("install");
export const uninstallCommandSpec = installCommand("uninstall");
