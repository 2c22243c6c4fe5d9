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

/**
 * `install <host>` / `uninstall <host>`: parse, print help or run, and turn
 * any failure into one line on stderr and exit code 1. Shared so every host's
 * installer answers the same way.
 */
export async function runInstaller<O>(
  spec: InstallerSpec<O>,
  action: "install" | "uninstall",
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  try {
    const { help, ...options } = spec.parse(argv, io.cwd);
    if (help) {
      io.stdout.write(spec.usage);
      return 0;
    }
    const run = action === "install" ? spec.install : spec.uninstall;
    await run({ ...(options as O), env: io.env, out: (line) => void io.stdout.write(`${line}\n`) });
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`todo-continuation ${action} ${spec.host}: ${message}\n`);
    return 1;
  }
}
