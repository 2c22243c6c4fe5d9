import { findProjectConfig } from "../../config/load.js";
import { revoke, trust, trustFilePath } from "../../config/trust.js";
import { ConfigError } from "../../config/validate.js";
import type { CommandSpec } from "../command.js";
import { CliError } from "../errors.js";

export const trustCommand: CommandSpec = {
  name: "trust",
  summary: "Allow this project's config to run its verify command (like direnv allow)",
  usage: ["trust [--revoke]"],
  details: [
    "Records the path and SHA-256 of the project's config (found as `config` finds it) in your own",
    "config folder ($XDG_CONFIG_HOME/todo-continuation, else ~/.config/todo-continuation). Until then,",
    "and again after any edit to the file, hooks behave as if it had no `verify`.",
    "--revoke removes the record.",
  ],
  options: {
    revoke: { type: "boolean", description: "Forget the trust recorded for this project's config" },
  },
  args: { min: 0, max: 0 },
  examples: ["trust", "trust --revoke"],
  async run(ctx) {
    const env = ctx.io.env;
    let loaded: ReturnType<typeof findProjectConfig>;
    try {
      loaded = findProjectConfig(ctx.io.cwd, env.HOME);
    } catch (error) {
      // An invalid file is not trusted; revoking it must still work.
      if (!(error instanceof ConfigError)) throw error;
      if (ctx.values.revoke === true) {
        const removed = revoke(error.file.replace(/ \(".*"\)$/, ""), { env, home: env.HOME });
        ctx.out(removed ? `Revoked trust in ${error.file}.` : `${error.file} was not trusted.`);
        return 0;
      }
      throw new CliError(`${error.message}; fix it before trusting it`);
    }
    if (loaded === null) {
      throw new CliError(
        `no todo-continuation.config.json (or package.json "todo-continuation" key) from ${ctx.io.cwd} up to the repository root; nothing to trust`,
      );
    }
    if (ctx.values.revoke === true) {
      const removed = revoke(loaded.path, { env, home: env.HOME });
      if (ctx.global.json) ctx.json({ path: loaded.path, trusted: false, removed });
      else
        ctx.out(removed ? `Revoked trust in ${loaded.path}.` : `${loaded.path} was not trusted.`);
      return 0;
    }
    const entry = trust(loaded, { env, home: env.HOME, now: Date.now() });
    if (ctx.global.json) ctx.json({ ...entry, trusted: true, store: trustFilePath(env, env.HOME) });
    else {
      ctx.out(`Trusted ${entry.path} (sha256 ${entry.sha256.slice(0, 12)}).`);
      const command = loaded.config.verify?.command;
      if (command !== undefined) ctx.out(`verify will run: ${command}`);
      ctx.out("Any edit to the file needs `todo-continuation trust` again.");
    }
    return 0;
  },
};
