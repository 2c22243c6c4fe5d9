import { effectiveConfig, type Sourced } from "../../config/effective.js";
import { findProjectConfig } from "../../config/load.js";
import { notifyUntrustedNotice, resolveNotify } from "../../config/notify.js";
import { trustStatus } from "../../config/trust.js";
import { ConfigError } from "../../config/validate.js";
import { PRICES_AS_OF } from "../../core/cost/prices.js";
import type { CommandSpec } from "../command.js";
import { CliError } from "../errors.js";

function show(name: string, v: Sourced<unknown>): string {
  return `  ${name.padEnd(20)} ${JSON.stringify(v.value)}  (${v.source})`;
}

/** The trust line shown by `config`, `why` and `doctor`: what runs, and what to run to allow it. */
export function trustLine(status: ReturnType<typeof trustStatus>, file: string): string {
  if (status.trusted) {
    return status.why === "home"
      ? `trusted (a file in your home folder): ${file}`
      : `trusted: ${file}`;
  }
  return status.why === "changed"
    ? `NOT trusted: ${file} changed since it was trusted; verify does not run until you run \`todo-continuation trust\` in this project`
    : `NOT trusted: verify does not run until you run \`todo-continuation trust\` in this project (${file})`;
}

export const configCommand: CommandSpec = {
  name: "config",
  summary: "Print the effective configuration for this folder, and where each value came from",
  usage: ["config [--json]"],
  details: [
    'Finds todo-continuation.config.json (or package.json\'s "todo-continuation" key) walking up',
    "from the current folder to the repository root, validates it, and prints every value with its",
    "source: default, preset, file or flag (--preset given before the command counts as a flag).",
  ],
  args: { min: 0, max: 0 },
  examples: ["config", "--preset omo config --json"],
  async run(ctx) {
    let loaded: ReturnType<typeof findProjectConfig>;
    let effective: ReturnType<typeof effectiveConfig>;
    try {
      loaded = findProjectConfig(ctx.io.cwd, ctx.io.env.HOME);
      effective = effectiveConfig(loaded, { preset: ctx.global.preset });
    } catch (error) {
      if (error instanceof ConfigError) throw new CliError(error.message);
      throw error;
    }
    const trust =
      loaded === null ? null : trustStatus(loaded, { env: ctx.io.env, home: ctx.io.env.HOME });
    const notifyFile = loaded?.config.notify;
    const notify = notifyFile === undefined ? null : resolveNotify(notifyFile);
    if (ctx.global.json) {
      ctx.json({ ...effective, notify, trust });
      return 0;
    }
    ctx.out(
      `file: ${effective.file ?? "none (no todo-continuation.config.json up to the repository root)"}`,
    );
    if (loaded !== null && trust !== null) ctx.out(`trust: ${trustLine(trust, loaded.path)}`);
    ctx.out(show("preset", effective.preset));
    ctx.out(show("mode", effective.mode));
    const prices = Object.keys(loaded?.config.prices ?? {});
    if (prices.length > 0)
      ctx.out(`prices: ${prices.join(", ")} (file), over the table as of ${PRICES_AS_OF}`);
    ctx.out("limits:");
    for (const [key, value] of Object.entries(effective.limits)) ctx.out(show(key, value));
    if (effective.verify === null) {
      ctx.out("verify: none");
    } else {
      ctx.out("verify:");
      for (const [key, value] of Object.entries(effective.verify)) ctx.out(show(key, value));
    }
    if (notify === null || notifyFile === undefined) ctx.out("notify: none");
    else {
      ctx.out("notify:");
      for (const [key, value] of Object.entries(notify)) {
        const given = (notifyFile as Record<string, unknown>)[key] !== undefined;
        if (value !== null) ctx.out(show(key, { value, source: given ? "file" : "default" }));
      }
    }
    return 0;
  },
};

/**
 * For `why` and `doctor`: a line saying the project's verify does not run
 * and what to run, or why the config cannot be read; null when all is well
 * or there is no verify.
 */
export function projectTrustHint(
  cwd: string,
  env: Record<string, string | undefined>,
): string | null {
  try {
    const loaded = findProjectConfig(cwd, env.HOME);
    if (loaded === null) return null;
    const { verify, notify } = loaded.config;
    if (verify === undefined && notify === undefined) return null;
    const status = trustStatus(loaded, { env, home: env.HOME });
    if (status.trusted) return null;
    const lines: string[] = [];
    if (verify !== undefined) lines.push(`verify: ${trustLine(status, loaded.path)}`);
    if (notify !== undefined) lines.push(notifyUntrustedNotice(status.why, loaded.path));
    return lines.join("\n  ");
  } catch (error) {
    return `verify: the project config cannot be used: ${error instanceof Error ? error.message : String(error)}`;
  }
}
