import { packageVersion } from "../config/package-version.js";
import { parseCommandLine } from "./argv.js";
import type { CommandSpec } from "./command.js";
import { createContext } from "./context.js";
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from "./errors.js";
import { helpWidth } from "./format/wrap.js";
import { formatCommandHelp, formatOverview, PROGRAM } from "./help.js";
import type { CliIo } from "./io.js";
import { COMMANDS } from "./registry.js";

/** `help [command]`: a command of its own so that `help show` works like `show --help`. */
const helpCommand: CommandSpec = {
  name: "help",
  summary: "Show help for every command, or for one",
  usage: ["help [command]"],
  args: { min: 0, max: 1 },
  async run() {
    return EXIT_OK;
  },
};

const ALL: readonly CommandSpec[] = [...COMMANDS, helpCommand];

function printHelp(io: CliIo, topic: string | undefined): number {
  if (topic === undefined || topic === "help") {
    io.stdout.write(formatOverview(ALL, packageVersion(), helpWidth(io.stdout)));
    return EXIT_OK;
  }
  const command = ALL.find((c) => c.name === topic);
  if (!command) throw new UsageError(`no help for unknown command '${topic}'`);
  io.stdout.write(formatCommandHelp(command, helpWidth(io.stdout)));
  return EXIT_OK;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs one command line and returns the exit code: 0 success, 1 failure,
 * 2 bad usage. Never throws; errors are printed to stderr.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let close: (() => Promise<void>) | null = null;
  try {
    const parsed = parseCommandLine(argv, ALL);
    if (parsed.kind === "version") {
      io.stdout.write(`${packageVersion()}\n`);
      return EXIT_OK;
    }
    if (parsed.kind === "help") return printHelp(io, parsed.topic);
    if (parsed.command === helpCommand) return printHelp(io, parsed.positionals[0]);
    const ctx = createContext({
      positionals: parsed.positionals,
      values: parsed.values,
      global: parsed.global,
      io,
    });
    close = () => ctx.close();
    return (await parsed.command.run(ctx)) ?? EXIT_OK;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${PROGRAM}: ${error.message}\n`);
      const hint = error.command ? `${PROGRAM} ${error.command} --help` : `${PROGRAM} --help`;
      io.stderr.write(`Run '${hint}' for usage.\n`);
      return EXIT_USAGE;
    }
    if (error instanceof CliError) {
      io.stderr.write(`${PROGRAM}: ${error.message}\n`);
      for (const line of error.details) io.stderr.write(`${line}\n`);
      return EXIT_FAILURE;
    }
    io.stderr.write(`${PROGRAM}: ${errorMessage(error)}\n`);
    if (io.env.TODO_CONTINUATION_DEBUG && error instanceof Error && error.stack) {
      io.stderr.write(`${error.stack}\n`);
    }
    return EXIT_FAILURE;
  } finally {
    if (close !== null) {
      try {
        await close();
      } catch (error) {
        io.stderr.write(`${PROGRAM}: while closing the store: ${errorMessage(error)}\n`);
      }
    }
  }
}
