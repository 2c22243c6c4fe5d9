import type { ConnectionTarget } from "./options.js";

/**
 * Raised when the store cannot talk to PostgreSQL at all. The message names
 * the host and port and what to check; the original error is the `cause`.
 */
export class PostgresUnavailableError extends Error {
  override readonly name = "PostgresUnavailableError";
  readonly target: ConnectionTarget;
  readonly code: string | undefined;

  constructor(message: string, target: ConnectionTarget, code: string | undefined, cause: unknown) {
    super(message, { cause });
    this.target = target;
    this.code = code;
  }
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
]);

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** A PostgreSQL SQLSTATE: five digits or upper-case letters. */
function isSqlState(code: string | undefined): boolean {
  return code !== undefined && /^[0-9A-Z]{5}$/.test(code);
}

/** SQLSTATEs of a wait cut short: statement_timeout (57014) and lock_timeout (55P03). */
const TIMEOUT_CODES: Record<string, string> = {
  "57014": "statement_timeout cancelled the statement",
  "55P03": "another session holds its row lock",
};

/**
 * Raised when PostgreSQL cut a scope's statement short (statement_timeout,
 * lock_timeout): the server is fine, this scope is busy. Names the scope.
 */
export class PostgresTimeoutError extends Error {
  override readonly name = "PostgresTimeoutError";
  readonly code: string;
  readonly scopeKey: string;

  constructor(scopeKey: string, code: string, cause: unknown) {
    super(
      `PostgresStore: timed out writing scope ${scopeKey}: ${TIMEOUT_CODES[code] ?? code} (SQLSTATE ${code}). Writes of other scopes are not affected; retry once the other session commits, or raise lockTimeoutMs / statement_timeout`,
      { cause },
    );
    this.code = code;
    this.scopeKey = scopeKey;
  }
}

/** The error as a `PostgresTimeoutError` naming the scope when it is a timeout; else unchanged. */
export function explainTimeout(error: unknown, scopeKey: string): unknown {
  const code = errorCode(error);
  return code !== undefined && Object.hasOwn(TIMEOUT_CODES, code)
    ? new PostgresTimeoutError(scopeKey, code, error)
    : error;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Translates a failure to connect (network, timeout, authentication, missing
 * database) into a `PostgresUnavailableError`; returns null for any other
 * error, which the caller rethrows unchanged.
 */
export function explainConnectionError(
  error: unknown,
  target: ConnectionTarget,
): PostgresUnavailableError | null {
  if (error instanceof PostgresUnavailableError) return error;
  const code = errorCode(error);
  const message = errorMessage(error);
  const where = `${target.host}:${target.port}`;
  let advice: string | null = null;
  if (code !== undefined && NETWORK_CODES.has(code)) {
    advice = `cannot reach PostgreSQL at ${where} (${code}). Check that the server is running and accepts TCP connections on that host and port (pg_isready -h ${target.host} -p ${target.port}), and that the connection string or TODO_CONTINUATION_DATABASE_URL points at it`;
  } else if (
    // Server errors carry a SQLSTATE (a statement or lock timeout is one); only
    // the client's own errors without one say the server did not answer.
    !isSqlState(code) &&
    /timeout|terminated unexpectedly|Connection terminated/i.test(message)
  ) {
    advice = `no answer from PostgreSQL at ${where} (${message}). Check that the server is running, that a firewall does not drop the connection, and that it is not out of connections (max_connections)`;
  } else if (code === "28P01" || code === "28000") {
    advice = `PostgreSQL at ${where} refused user "${target.user}" (${message}). Check the user name and password in the connection string and the server's pg_hba.conf`;
  } else if (code === "3D000") {
    advice = `database "${target.database}" does not exist on PostgreSQL at ${where}. Create it (createdb ${target.database}) or fix the database name in the connection string`;
  } else if (code === "57P01" || code === "57P02" || code === "57P03") {
    advice = `PostgreSQL at ${where} is shutting down, restarting or still starting up (${message}). Retry once it accepts connections again`;
  } else if (code === "53300") {
    advice = `PostgreSQL at ${where} has no free connections (${message}). Lower poolSize or raise max_connections`;
  }
  if (advice === null) return null;
  return new PostgresUnavailableError(`PostgresStore: ${advice}`, target, code, error);
}
