import { parseArgs } from "node:util";
import { quoteInput } from "../core/quote.js";
import type { CommandSpec, OptionSpec } from "./command.js";
import { editDistance } from "./edit-distance.js";
import { UsageError } from "./errors.js";
import { GLOBAL_OPTIONS, type GlobalOptions } from "./global-options.js";

export type ParsedCommandLine =
  | { kind: "help"; topic: string | undefined; global: GlobalOptions }
  | { kind: "version"; global: GlobalOptions }
  | {
      kind: "command";
      command: CommandSpec;
      positionals: string[];
      values: Record<string, string | boolean | undefined>;
      global: GlobalOptions;
    };

const GLOBAL_STRING_FLAGS = new Set(
  Object.entries(GLOBAL_OPTIONS)
    .filter(([, spec]) => spec.type === "string")
    .map(([name]) => `--${name}`),
);

/**
 * Index of the command name: the first argument that is not an option or the
 * value of a global option taking one. Global options may come before or after
 * the command; command options only after it.
 */
export function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") return i + 1 < argv.length ? i + 1 : -1;
    if (GLOBAL_STRING_FLAGS.has(arg)) {
      i++;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") return i;
  }
  return -1;
}

function toParseArgsOptions(specs: Record<string, OptionSpec>) {
  const out: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const [name, spec] of Object.entries(specs)) {
    out[name] = spec.short ? { type: spec.type, short: spec.short } : { type: spec.type };
  }
  return out;
}

function globalsFrom(values: Record<string, unknown>): GlobalOptions {
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  return {
    dir: text(values.dir),
    databaseUrl: text(values["database-url"]),
    schema: text(values.schema),
    preset: text(values.preset),
    json: values.json === true,
    help: values.help === true,
    version: values.version === true,
  };
}

/** A user's word cut to the length errors quote (see quoteInput), unquoted. */
function clip(text: string): string {
  return (JSON.parse(quoteInput(text)) as string).replace(/[\r\n]/g, " ");
}

/** Rewrites parseArgs' messages into the words this CLI uses. */
function usageMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${clip(unknown[1] as string)}`;
  const missing = /Option '([^']+)' argument missing/.exec(message);
  if (missing) return `option ${missing[1]?.replace(/^-\w, /, "")} needs a value`;
  const takesNone = /Option '([^']+)' does not take an argument/.exec(message);
  if (takesNone) return `option ${takesNone[1]?.replace(/^-\w, /, "")} takes no value`;
  return message.split("\n")[0] ?? message;
}

function parse(
  args: string[],
  options: Record<string, OptionSpec>,
  command: string | undefined,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: toParseArgsOptions(options),
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (error) {
    throw new UsageError(usageMessage(error), command);
  }
}

/**
 * Splits the command line into global options, the command, its options and
 * its arguments. Throws UsageError for anything a person could have mistyped.
 */
export function parseCommandLine(
  argv: readonly string[],
  commands: readonly CommandSpec[],
): ParsedCommandLine {
  const at = commandIndex(argv);
  if (at === -1) {
    const { values, positionals } = parse([...argv], GLOBAL_OPTIONS, undefined);
    const global = globalsFrom(values);
    if (global.version) return { kind: "version", global };
    if (global.help) return { kind: "help", topic: positionals[0], global };
    throw new UsageError("no command given");
  }
  const name = argv[at] ?? "";
  const command = commands.find((c) => c.name === name);
  if (!command) {
    const guess = closestCommand(name, commands);
    throw new UsageError(
      `unknown command '${clip(name)}'${guess ? ` (did you mean '${guess}'?)` : ""}`,
    );
  }
  if (command.passthrough) {
    const { values, positionals } = parse(argv.slice(0, at), GLOBAL_OPTIONS, name);
    if (positionals.length > 0)
      throw new UsageError(`unexpected argument: ${clip(positionals[0] as string)}`, name);
    const first = argv[at + 1];
    // Commands that take a host first (`install <host>`) answer a bare --help themselves.
    if (command.args.min > 0 && (first === "--help" || first === "-h")) {
      return { kind: "help", topic: name, global: globalsFrom(values) };
    }
    return {
      kind: "command",
      command,
      positionals: argv.slice(at + 1),
      values: {},
      global: globalsFrom(values),
    };
  }
  const rest = [...argv.slice(0, at), ...argv.slice(at + 1)];
  const own = command.options ?? {};
  for (const key of Object.keys(own)) {
    if (key in GLOBAL_OPTIONS)
      throw new Error(`command ${name}: option --${key} shadows a global option`);
  }
  const { values, positionals } = parse(rest, { ...GLOBAL_OPTIONS, ...own }, name);
  const global = globalsFrom(values);
  if (global.help) return { kind: "help", topic: name, global };
  if (global.version) return { kind: "version", global };
  const commandValues: Record<string, string | boolean | undefined> = {};
  for (const key of Object.keys(own)) commandValues[key] = values[key];
  if (positionals.length < command.args.min) {
    throw new UsageError(`missing argument: usage: ${command.usage[0] ?? name}`, name);
  }
  if (positionals.length > command.args.max) {
    const extra = positionals.slice(command.args.max).join(" ");
    throw new UsageError(`unexpected argument: ${clip(extra)}`, name);
  }
  return { kind: "command", command, positionals, values: commandValues, global };
}

/** The command one typo away, if any. */
function closestCommand(name: string, commands: readonly CommandSpec[]): string | null {
  let best: { name: string; d: number } | null = null;
  for (const c of commands) {
    const d = editDistance(name, c.name);
    if (d <= 2 && (best === null || d < best.d)) best = { name: c.name, d };
  }
  return best?.name ?? null;
}
