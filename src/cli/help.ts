import type { CommandSpec, OptionSpec } from "./command.js";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./errors.js";
import { DEFAULT_WIDTH, paragraphs, wrapText } from "./format/wrap.js";
import { GLOBAL_OPTIONS } from "./global-options.js";

export const PROGRAM = "todo-continuation";

/** Indent of a description under its command or option (git and npm style). */
const UNDER = "      ";
/** A flag column wider than this pushes descriptions under their flags. */
const MAX_FLAG_COLUMN = 26;

function flagOf(spec: OptionSpec, name: string): string {
  const value = spec.type === "string" ? ` <${spec.valueName ?? "value"}>` : "";
  return `${spec.short ? `-${spec.short}, ` : "    "}--${name}${value}`;
}

/**
 * Options as a two-column list wrapped to `width`; where a flag does not fit
 * the column, or the column leaves too little room, its description goes
 * beneath it.
 */
function optionLines(options: Record<string, OptionSpec>, width: number): string[] {
  const rows = Object.entries(options).map(([name, spec]) => ({
    flag: flagOf(spec, name),
    description: spec.description,
  }));
  const column = Math.min(MAX_FLAG_COLUMN, Math.max(...rows.map((r) => r.flag.length)));
  const hanging = " ".repeat(2 + column + 2);
  const sideBySide = width - hanging.length >= 30;
  return rows.flatMap((r) => {
    if (sideBySide && r.flag.length <= column) {
      return wrapText(r.description, width, `  ${r.flag.padEnd(column)}  `, hanging);
    }
    return [`  ${r.flag}`, ...wrapText(r.description, width, UNDER)];
  });
}

function exitCodes(width: number): string[] {
  return [
    "Exit codes:",
    ...wrapText("success", width, `  ${EXIT_OK}  `, "     "),
    ...wrapText(
      "failure (unknown scope, invalid edit, unreachable store, ...)",
      width,
      `  ${EXIT_FAILURE}  `,
      "     ",
    ),
    ...wrapText(
      "bad usage (unknown command or option, missing argument)",
      width,
      `  ${EXIT_USAGE}  `,
      "     ",
    ),
  ];
}

/** A usage line of `command`, wrapped with its continuation indented under the command. */
function usageLines(usage: string, width: number, indent: string): string[] {
  return wrapText(usage, width, indent, `${indent}    `);
}

/**
 * The overview printed by `help` and `--help`: each command's usage, then its
 * summary beneath, both wrapped to `width` (the terminal's, or 80 without one).
 */
export function formatOverview(
  commands: readonly CommandSpec[],
  version: string,
  width: number = DEFAULT_WIDTH,
): string {
  const text = (line: string) => wrapText(line, width);
  return [
    ...text(
      `${PROGRAM} ${version}: keeps AI agents working through their todo lists, without running away.`,
    ),
    "",
    ...usageLines(`Usage: ${PROGRAM} [global options] <command> [arguments] [options]`, width, ""),
    "",
    "Commands:",
    ...commands.flatMap((c) => [
      ...usageLines(c.usage[0] ?? c.name, width, "  "),
      ...wrapText(c.summary, width, UNDER),
    ]),
    "",
    "Global options:",
    ...optionLines(GLOBAL_OPTIONS, width),
    "",
    ...text("A <scope> is a scope key, its label, or a unique prefix of either (see `list`)."),
    ...text("Colour follows NO_COLOR and whether stdout is a terminal."),
    "",
    ...exitCodes(width),
    "",
    ...text(`Run '${PROGRAM} <command> --help' for a command's options.`),
    "",
  ].join("\n");
}

/** The `--help` of one command, wrapped to `width`. */
export function formatCommandHelp(command: CommandSpec, width: number = DEFAULT_WIDTH): string {
  const lines = [
    ...wrapText(`${PROGRAM} ${command.name}: ${command.summary}`, width, "", "  "),
    "",
    "Usage:",
    ...command.usage.flatMap((u) => usageLines(`${PROGRAM} ${u}`, width, "  ")),
  ];
  if (command.details?.length) {
    lines.push("", ...paragraphs(command.details).flatMap((p) => wrapText(p, width)));
  }
  if (command.options && Object.keys(command.options).length > 0) {
    lines.push("", "Options:", ...optionLines(command.options, width));
  }
  lines.push("", "Global options:", ...optionLines(GLOBAL_OPTIONS, width));
  if (command.examples?.length) {
    lines.push(
      "",
      "Examples:",
      ...command.examples.flatMap((e) => usageLines(`${PROGRAM} ${e}`, width, "  ")),
    );
  }
  lines.push("", ...exitCodes(width), "");
  return lines.join("\n");
}
