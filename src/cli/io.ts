/** Where the CLI reads and writes, so the dispatcher can run outside a real process too. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): unknown };
  stdin: NodeJS.ReadableStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /** The script path the program was started with (process.argv[1]), for printed commands. */
  argv1: string | undefined;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    argv1: process.argv[1],
  };
}
