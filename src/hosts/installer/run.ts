import { parseInstallArgs } from "./parse.js";
import type { HostInstaller, InstallerRow } from "./row.js";

/** Exit codes, the CLI's: done, failed, bad command line. */
const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/** What the runner reads and writes; the CLI's io satisfies it. */
export interface InstallIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  cwd: string;
}

/** An error's message without a `todo-continuation (host): ` prefix of its own (ours is added). */
function bareMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^todo-continuation(?: \([^)]*\))?: /, "");
}

/** The installer's options for a command line, or the error that refuses it. */
export function installerOptions<O>(
  row: InstallerRow,
  installer: HostInstaller<O>,
  argv: readonly string[],
  cwd: string,
): O & { help: boolean } {
  const args = parseInstallArgs(row.flags, argv, [row.host, ...row.aliases]);
  // Bad values are part of a bad command line: refused here, before anything runs.
  return { ...installer.options(args, cwd), help: args.help };
}

/**
 * `install <host>` / `uninstall <host>`: parse, print help or run. A bad
 * command line (unknown option, bad option value) is one line on stderr and
 * exit 2, like every other command; a failure while installing is one line
 * and exit 1. Every host's installer answers the same way.
 */
export async function runInstaller(
  row: InstallerRow,
  action: "install" | "uninstall",
  argv: readonly string[],
  io: InstallIo,
): Promise<number> {
  const prefix = `todo-continuation ${action} ${row.host}`;
  const installer = await row.load();
  let parsed: object & { help: boolean };
  try {
    parsed = installerOptions(row, installer, argv, io.cwd);
  } catch (error) {
    io.stderr.write(`${prefix}: ${bareMessage(error)}\n`);
    io.stderr.write(`Run 'todo-continuation ${action} ${row.host} --help' for usage.\n`);
    return EXIT_USAGE;
  }
  const { help, ...options } = parsed;
  if (help) {
    io.stdout.write(installer.usage);
    return EXIT_OK;
  }
  try {
    const run = action === "install" ? installer.install : installer.uninstall;
    await run({
      ...options,
      env: io.env,
      out: (line: string) => void io.stdout.write(`${line}\n`),
    });
    return EXIT_OK;
  } catch (error) {
    io.stderr.write(`${prefix}: ${bareMessage(error)}\n`);
    return EXIT_FAILURE;
  }
}
