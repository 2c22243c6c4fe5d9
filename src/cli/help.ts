import type { CommandSpec, OptionSpec } from "./command.js";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./errors.js";
import { GLOBAL_OPTIONS } from "./global-options.js";

export const PROGRAM = "todo-continuation";

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : "    "}--${name}${spec.type === "string" ? ` <${spec.valueName ?? "value"}>` : ""}`;
    return { flag, description: spec.description };
  });
  const width = Math.max(...rows.map((r) => r.flag.length));
  return rows.map((r) => `  ${r.flag.padEnd(width)}  ${r.description}`);
}

const EXIT_CODES = [
  "Exit codes:",
  `  ${EXIT_OK}  success`,
  `  ${EXIT_FAILURE}  failure (unknown scope, invalid edit, unreachable store, ...)`,
  `  ${EXIT_USAGE}  bad usage (unknown command or option, missing argument)`,
];

/** The overview printed by `help` and `--help`. */
export function formatOverview(commands: readonly CommandSpec[], version: string): string {
  const width = Math.max(...commands.map((c) => c.usage[0]?.length ?? c.name.length));
  return [
    `${PROGRAM} ${version}: keeps AI agents working through their todo lists, without running away.`,
    "",
    `Usage: ${PROGRAM} [global options] <command> [arguments] [options]`,
    "",
    "Commands:",
    ...commands.map((c) => `  ${(c.usage[0] ?? c.name).padEnd(width)}  ${c.summary}`),
    "",
    "Global options:",
    ...optionLines(GLOBAL_OPTIONS),
    "",
    "A <scope> is a scope key, its label, or a unique prefix of either (see `list`).",
    "Colour follows NO_COLOR and whether stdout is a terminal.",
    "",
    ...EXIT_CODES,
    "",
    `Run '${PROGRAM} <command> --help' for a command's options.`,
    "",
  ].join("\n");
}

/** The `--help` of one command. */
export function formatCommandHelp(command: CommandSpec): string {
  const lines = [
    `${PROGRAM} ${command.name}: ${command.summary}`,
    "",
    "Usage:",
    ...command.usage.map((u) => `  ${PROGRAM} ${u}`),
  ];
  if (command.details?.length) lines.push("", ...command.details);
  if (command.options && Object.keys(command.options).length > 0) {
    lines.push("", "Options:", ...optionLines(command.options));
  }
  lines.push("", "Global options:", ...optionLines(GLOBAL_OPTIONS));
  if (command.examples?.length) {
    lines.push("", "Examples:", ...command.examples.map((e) => `  ${PROGRAM} ${e}`));
  }
  lines.push("", ...EXIT_CODES, "");
  return lines.join("\n");
}
