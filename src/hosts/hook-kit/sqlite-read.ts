import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { readSqliteTable, SqliteUnsupportedError } from "./sqlite-file.js";

/**
 * Reading a host's own SQLite file (Copilot keeps its todo list in one), read-only. This
 * package's own reader (sqlite-file.ts) reads it in-process; only a database in a form it does
 * not read (UTF-16 text, a WITHOUT ROWID table) is handed to Node's `node:sqlite` (Node
 * 22.13+), else the `sqlite3` program. Neither is a dependency of this package.
 */

type Sqlite = {
  DatabaseSync: new (
    path: string,
    options: { readOnly: boolean },
  ) => { prepare(sql: string): { all(): unknown[] }; close(): void };
};

function withNodeSqlite(path: string, query: string): unknown[] | undefined {
  let sqlite: Sqlite;
  try {
    sqlite = createRequire(import.meta.url)("node:sqlite") as Sqlite;
  } catch {
    return undefined; // Older Node: try the sqlite3 program.
  }
  const db = new sqlite.DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare(query).all();
  } finally {
    db.close();
  }
}

function withSqlite3(path: string, query: string): unknown[] {
  let out: string;
  try {
    out = execFileSync("sqlite3", ["-readonly", "-json", path, query], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 5_000,
    });
  } catch (error) {
    throw new Error(`sqlite3 could not read ${path}: ${(error as Error).message}`);
  }
  return out.trim() === "" ? [] : (JSON.parse(out) as unknown[]);
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The `columns` of every row of `table` (rowid order) in the database at `path`; throws when
 * it cannot be read. Integers beyond Number.MAX_SAFE_INTEGER come back as bigints from this
 * package's reader (as rounded numbers from the fallbacks).
 */
export function readSqliteTableRows(
  path: string,
  table: string,
  columns: readonly string[],
): Record<string, unknown>[] {
  try {
    return readSqliteTable(path, table, columns);
  } catch (error) {
    if (!(error instanceof SqliteUnsupportedError)) throw error;
    const query = `SELECT ${columns.map(quoted).join(", ")} FROM ${quoted(table)}`;
    return (withNodeSqlite(path, query) ?? withSqlite3(path, query)) as Record<string, unknown>[];
  }
}

/**
 * What reads a database this package's reader does not (UTF-16, WITHOUT ROWID):
 * `node:sqlite`, the sqlite3 program, or null for nothing.
 */
export function sqliteFallback(env: Record<string, string | undefined>): string | null {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 13)) return "node:sqlite";
  try {
    execFileSync("sqlite3", ["-version"], { env, stdio: "ignore", timeout: 5_000 });
    return "the sqlite3 program";
  } catch {
    return null;
  }
}
