/** Exit codes with a meaning scripts can rely on. */
export const EXIT_OK = 0;
/** The command ran and failed: unknown scope, invalid edit, unreachable store. */
export const EXIT_FAILURE = 1;
/** The command line itself is wrong: unknown command or option, missing argument. */
export const EXIT_USAGE = 2;

/** Bad usage: printed with a pointer to `--help`, exit 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  constructor(
    message: string,
    /** The command whose help to point at, when known. */
    readonly command?: string,
  ) {
    super(message);
  }
}

/** A failure the user can act on: printed without a stack trace, exit 1. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    /** Further lines (candidates, hints) printed under the message. */
    readonly details: string[] = [],
  ) {
    super(message);
  }
}
