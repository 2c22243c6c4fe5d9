import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "../errors.js";
import type { CliIo } from "../io.js";

/** What an integration's install command needs to run from a command line. */
export interface InstallerSpec<O> {
  /** The host as the user types it: `claude-code`, `opencode`. */
  host: string;
  usage: string;
  parse: (argv: readonly string[], cwd: string) => O & { help?: boolean };
  install: (
    options: O & { env: Record<string, string | undefined>; out: (line: string) => void },
  ) => Promise<unknown>;
  uninstall: (
    options: O & { env: Record<string, string | undefined>; out: (line: string) => void },
  ) => Promise<unknown>;
}

/** The options of a hook installer that writes either the project's or the user's file. */
export interface ProjectOrUserInstallArgs {
  target: "project" | "user";
  projectDir: string;
  preset?: string;
  entry?: string;
  help: boolean;
}

/**
 * Parses `install|uninstall <host>` for hosts whose hooks live in a project
 * or a user file (Codex, Gemini CLI); `argv` may start with the host's name.
 * `files` names the two files in the error for passing both flags.
 */
export function parseProjectOrUserInstallArgs(
  host: string,
  files: string,
  argv: readonly string[],
  cwd: string,
): ProjectOrUserInstallArgs {
  const args = argv[0] === host ? argv.slice(1) : [...argv];
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      project: { type: "boolean" },
      user: { type: "boolean" },
      "project-dir": { type: "string" },
      preset: { type: "string" },
      entry: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (positionals.length > 0) {
    throw new Error(`unexpected argument ${JSON.stringify(positionals[0])}`);
  }
  if (values.project === true && values.user === true) {
    throw new Error(`--project and --user name two ${files}; pass only one`);
  }
  return {
    target: values.user === true ? "user" : "project",
    projectDir: resolve(cwd, values["project-dir"] ?? "."),
    ...(values.preset !== undefined ? { preset: values.preset } : {}),
    ...(values.entry !== undefined ? { entry: resolve(cwd, values.entry) } : {}),
    help: values.help === true,
  };
}

/** An error's message without a `todo-continuation (host): ` prefix of its own (ours is added). */
function bareMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^todo-continuation(?: \([^)]*\))?: /, "");
}

/**
 * `install <host>` / `uninstall <host>`: parse, print help or run. A bad
 * command line (unknown option, bad option value) is one line on stderr and
 * exit 2, like every other command; a failure while installing is one line
 * and exit 1. Shared so every host's installer answers the same way.
 */
export async function runInstaller<O>(
  spec: InstallerSpec<O>,
  action: "install" | "uninstall",
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  const prefix = `todo-continuation ${action} ${spec.host}`;
  let parsed: O & { help?: boolean };
  try {
    parsed = spec.parse(argv, io.cwd);
  } catch (error) {
    io.stderr.write(`${prefix}: ${bareMessage(error)}\n`);
    io.stderr.write(`Run 'todo-continuation ${action} ${spec.host} --help' for usage.\n`);
    return EXIT_USAGE;
  }
  const { help, ...options } = parsed;
  if (help) {
    io.stdout.write(spec.usage);
    return EXIT_OK;
  }
  try {
    const run = action === "install" ? spec.install : spec.uninstall;
    await run({ ...(options as O), env: io.env, out: (line) => void io.stdout.write(`${line}\n`) });
    return EXIT_OK;
  } catch (error) {
    io.stderr.write(`${prefix}: ${bareMessage(error)}\n`);
    return EXIT_FAILURE;
  }
}
