import pg from "pg";
import { explainConnectionError } from "./errors.js";
import { describeTarget, type PostgresConnectionOptions, resolveOptions } from "./options.js";
import { type MigrationReport, migrateSchema } from "./schema.js";

/**
 * Creates or upgrades the store's schema and returns what it did. Safe to run
 * while workers are live and from several processes at once. Uses the same
 * options as `createPostgresStore`.
 */
export async function migrate(options: PostgresConnectionOptions = {}): Promise<MigrationReport> {
  const resolved = resolveOptions(options);
  const target = describeTarget(resolved.connectionString, resolved.pool);
  const pool =
    resolved.pool ??
    new pg.Pool({
      connectionString: resolved.connectionString ?? undefined,
      max: 1,
      connectionTimeoutMillis: resolved.connectTimeoutMs,
      application_name: "todo-continuation migrate",
    });
  if (resolved.pool === null) pool.on("error", () => undefined);
  try {
    return await migrateSchema(pool, resolved.schema);
  } catch (error) {
    throw explainConnectionError(error, target) ?? error;
  } finally {
    if (resolved.pool === null) await pool.end();
  }
}
