import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { quoteInput } from "../../core/quote.js";
import type { HostInstaller, InstallArgs, InstallFlags } from "./row.js";

/**
 * Reads `install|uninstall <host>` arguments against a row's flags; `argv`
 * may start with the host's name (or one of `names`). Throws on an unknown
 * option, a stray argument, or two targets at once.
 */
export function parseInstallArgs(
  flags: InstallFlags,
  argv: readonly string[],
  names: readonly string[] = [],
): InstallArgs {
  const args = names.includes(argv[0] as string) ? argv.slice(1) : [...argv];
  const options: Record<string, { type: "boolean" | "string"; short?: string }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const target of flags.targets) options[target] = { type: "boolean" };
  for (const option of flags.options) options[option] = { type: "string" };
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options,
  });
  if (positionals.length > 0) {
    throw new Error(`unexpected argument ${quoteInput(positionals[0] as string)}`);
  }
  const targets = flags.targets.filter((t) => values[t] === true);
  if (targets.length > 1) {
    throw new Error(
      `--${targets[0]} and --${targets[1]} name two ${flags.targetsName}; pass only one`,
    );
  }
  const given: Record<string, string | undefined> = {};
  for (const option of flags.options) given[option] = values[option] as string | undefined;
  return {
    target: targets[0] ?? (flags.targets[0] as string),
    values: given,
    help: values.help === true,
  };
}

/** The options most installers take: the target, the project, and a preset and entry when given. */
export interface BaseInstallOptions {
  target: string;
  projectDir: string;
  preset?: string;
  entry?: string;
}

export function baseInstallOptions(args: InstallArgs, cwd: string): BaseInstallOptions {
  const { preset, entry } = args.values;
  return {
    target: args.target,
    projectDir: resolve(cwd, args.values["project-dir"] ?? "."),
    ...(preset !== undefined ? { preset } : {}),
    ...(entry !== undefined ? { entry: resolve(cwd, entry) } : {}),
  };
}

/**
 * The installer of a host that takes the common flags (target, project,
 * preset, entry) and nothing of its own.
 */
export function commonInstaller<O>(
  usage: string,
  install: HostInstaller<O>["install"],
  uninstall: HostInstaller<O>["uninstall"],
): HostInstaller<O> {
  return { usage, options: (args, cwd) => baseInstallOptions(args, cwd) as O, install, uninstall };
}
