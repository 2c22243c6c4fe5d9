import type { Pool, PoolClient } from "pg";
import { withTransaction } from "./transaction.js";

/** One forward-only change to the schema. Versions are applied in order, each exactly once. */
export interface Migration {
  version: number;
  name: string;
  /** Statements run inside one transaction, with `s` the quoted schema name. */
  sql(s: string): string;
}

/**
 * The schema's history. Append new migrations; never edit an applied one.
 *
 * `version` on a scope row is a write token drawn from a sequence, unique for
 * all time, so a row deleted and re-created can never match a stale read.
 * `log_seq` counts the log entries ever appended to the scope. The log has no
 * foreign key (its check would cost every decision a row lock); the store
 * deletes a scope's log with the scope, and a new scope numbers its entries
 * after any leftovers.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "scopes and decision log",
    sql: (s) => `
      CREATE TABLE ${s}.scopes (
        key text COLLATE "C" PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('tui', 'channel', 'cron', 'session')),
        todos json NOT NULL,
        todos_revision bigint NOT NULL DEFAULT 0,
        state json NOT NULL,
        state_revision bigint NOT NULL DEFAULT 0,
        version bigint NOT NULL,
        log_seq bigint NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now()
      ) WITH (fillfactor = 70);
      CREATE SEQUENCE ${s}.write_token CACHE 100;
      CREATE TABLE ${s}.decision_log (
        scope_key text COLLATE "C" NOT NULL,
        seq bigint NOT NULL,
        entry json NOT NULL,
        PRIMARY KEY (scope_key, seq)
      );`,
  },
  {
    version: 2,
    name: "notify listeners of changed scopes",
    // One NOTIFY per written row, on commit, so a dashboard can follow every process's writes.
    sql: (s) => `
      CREATE FUNCTION ${s}.notify_scope_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${CHANGE_CHANNEL}', TG_TABLE_SCHEMA || ' ' || COALESCE(NEW.key, OLD.key));
        RETURN NULL;
      END $$;
      CREATE TRIGGER scope_changed AFTER INSERT OR UPDATE OR DELETE ON ${s}.scopes
        FOR EACH ROW EXECUTE FUNCTION ${s}.notify_scope_change();`,
  },
];

/** The NOTIFY channel every write of a scope row signals on; the payload is "<schema> <key>". */
export const CHANGE_CHANNEL = "todo_continuation_changes";

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export interface MigrationReport {
  schema: string;
  /** Version found before migrating (0 = no schema yet). */
  from: number;
  to: number;
  applied: number[];
}

/** Both integers of the advisory lock that serializes migrations of one schema. */
const MIGRATION_LOCK_CLASS = 0x7443; // "tC"

function tooNew(schema: string, found: number): Error {
  return new Error(
    `PostgresStore: schema "${schema}" is at version ${found}, newer than this package knows (${LATEST_SCHEMA_VERSION}); upgrade todo-continuation before using it`,
  );
}

/** The applied version, or null when the schema or its migration table does not exist yet. */
async function currentVersion(db: Pool | PoolClient, schema: string): Promise<number | null> {
  const found = await db.query<{ exists: boolean }>(
    "SELECT to_regclass($1) IS NOT NULL AS exists",
    [`${quoteIdentifier(schema)}.schema_migrations`],
  );
  if (!found.rows[0]?.exists) return null;
  const result = await db.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${quoteIdentifier(schema)}.schema_migrations`,
  );
  return result.rows[0]?.version ?? 0;
}

/**
 * Brings `schema` up to the latest version. Concurrent callers (several
 * workers starting at once) serialize on an advisory lock, so each migration
 * runs once; a failed migration rolls back whole.
 */
export async function migrateSchema(pool: Pool, schema: string): Promise<MigrationReport> {
  const seen = await currentVersion(pool, schema);
  if (seen !== null && seen > LATEST_SCHEMA_VERSION) throw tooNew(schema, seen);
  if (seen === LATEST_SCHEMA_VERSION) {
    return { schema, from: seen, to: seen, applied: [] };
  }
  const s = quoteIdentifier(schema);
  return withTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [
      MIGRATION_LOCK_CLASS,
      schema,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    const from = (await currentVersion(client, schema)) ?? 0;
    if (from > LATEST_SCHEMA_VERSION) throw tooNew(schema, from);
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue;
      await client.query(migration.sql(s));
      await client.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    return { commit: true, value: { schema, from, to: LATEST_SCHEMA_VERSION, applied } };
  });
}
