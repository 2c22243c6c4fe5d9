import type { Pool } from "pg";

/** Environment variable read when no connection string is passed. */
export const DATABASE_URL_ENV = "TODO_CONTINUATION_DATABASE_URL";
export const DEFAULT_SCHEMA = "todo_continuation";
export const DEFAULT_POSTGRES_LOG_LIMIT = 200;
export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_ROW_LOCK_TIMEOUT_MS = 5_000;

export interface PostgresConnectionOptions {
  /** `postgres://user@host:port/db`; defaults to env `TODO_CONTINUATION_DATABASE_URL`. */
  connectionString?: string;
  /** An existing pool to use instead; the store never ends a pool it did not create. */
  pool?: Pool;
  /** PostgreSQL schema holding every table (default `todo_continuation`). */
  schema?: string;
  /** Connections in the pool the store creates (default 10). */
  poolSize?: number;
  /** How long to wait for a connection before reporting the server unreachable (default 10 s). */
  connectTimeoutMs?: number;
}

export interface PostgresStoreOptions extends PostgresConnectionOptions {
  /** Decision-log entries kept per scope (default 200). */
  logLimit?: number;
  /**
   * How long a transaction waits for a scope's row lock held by another
   * session before it fails, naming the scope (default 5 s). Writes of other
   * scopes never wait for it.
   */
  lockTimeoutMs?: number;
}

/** Options checked and filled in; `connectionString` is null only when a pool was given. */
export interface ResolvedOptions {
  connectionString: string | null;
  pool: Pool | null;
  schema: string;
  poolSize: number;
  connectTimeoutMs: number;
  logLimit: number;
  lockTimeoutMs: number;
}

/** Unquoted lower-case identifiers only, so a schema name can never inject SQL. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function positiveInteger(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${field}: expected a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function resolveSchema(value: unknown): string {
  if (value === undefined) return DEFAULT_SCHEMA;
  if (typeof value !== "string" || !SCHEMA_NAME.test(value)) {
    throw new TypeError(
      `schema: expected a lower-case identifier (letters, digits, underscore; at most 63; not starting with a digit), got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * Checks every option and fills in defaults. Throws a TypeError naming the
 * field before anything touches the database.
 */
export function resolveOptions(
  options: PostgresStoreOptions,
  env: Record<string, string | undefined> = process.env,
): ResolvedOptions {
  const schema = resolveSchema(options.schema);
  const poolSize = positiveInteger("poolSize", options.poolSize, DEFAULT_POOL_SIZE);
  const connectTimeoutMs = positiveInteger(
    "connectTimeoutMs",
    options.connectTimeoutMs,
    DEFAULT_CONNECT_TIMEOUT_MS,
  );
  const logLimit = positiveInteger("logLimit", options.logLimit, DEFAULT_POSTGRES_LOG_LIMIT);
  const lockTimeoutMs = positiveInteger(
    "lockTimeoutMs",
    options.lockTimeoutMs,
    DEFAULT_ROW_LOCK_TIMEOUT_MS,
  );
  if (options.pool !== undefined) {
    if (options.connectionString !== undefined) {
      throw new TypeError("pool: pass either pool or connectionString, not both");
    }
    if (typeof options.pool?.query !== "function" || typeof options.pool.connect !== "function") {
      throw new TypeError("pool: expected a pg Pool");
    }
    return {
      connectionString: null,
      pool: options.pool,
      schema,
      poolSize,
      connectTimeoutMs,
      logLimit,
      lockTimeoutMs,
    };
  }
  if (options.connectionString !== undefined) {
    if (typeof options.connectionString !== "string" || options.connectionString.trim() === "") {
      throw new TypeError(
        `connectionString: expected a non-empty string such as postgres://user@127.0.0.1:5432/db, got ${JSON.stringify(options.connectionString)}`,
      );
    }
    return {
      connectionString: options.connectionString,
      pool: null,
      schema,
      poolSize,
      connectTimeoutMs,
      logLimit,
      lockTimeoutMs,
    };
  }
  const raw = env[DATABASE_URL_ENV];
  if (raw === undefined || raw.trim() === "") {
    throw new TypeError(
      `connectionString: not given and ${DATABASE_URL_ENV} is not set; pass connectionString (e.g. postgres://user@127.0.0.1:5432/db) or set ${DATABASE_URL_ENV}`,
    );
  }
  return {
    connectionString: raw,
    pool: null,
    schema,
    poolSize,
    connectTimeoutMs,
    logLimit,
    lockTimeoutMs,
  };
}

/** Where the store connects, for error messages: never includes the password. */
export interface ConnectionTarget {
  host: string;
  port: string;
  database: string;
  user: string;
}

/** Reads host, port, database and user from a URL or pool settings, with libpq's defaults. */
export function describeTarget(
  connectionString: string | null,
  pool: Pool | null,
): ConnectionTarget {
  if (connectionString !== null) {
    try {
      const url = new URL(connectionString);
      const host = decodeURIComponent(url.hostname) || url.searchParams.get("host") || "localhost";
      return {
        host,
        port: url.port || "5432",
        database: decodeURIComponent(url.pathname.replace(/^\//, "")) || "(user name)",
        user: decodeURIComponent(url.username) || "(current user)",
      };
    } catch {
      return { host: "(see connection string)", port: "5432", database: "?", user: "?" };
    }
  }
  const settings = (pool as unknown as { options?: Record<string, unknown> } | null)?.options ?? {};
  const text = (value: unknown, fallback: string): string =>
    typeof value === "string" || typeof value === "number" ? String(value) : fallback;
  return {
    host: text(settings.host, "localhost"),
    port: text(settings.port, "5432"),
    database: text(settings.database, "?"),
    user: text(settings.user, "?"),
  };
}
