import { execFile, execFileSync } from "node:child_process";

/**
 * Reading a host's own SQLite file (Copilot keeps its todo list in one),
 * read-only: with Node's `node:sqlite` (Node 22.13+), else the `sqlite3`
 * program. Neither is a dependency of this package.
 */

type Sqlite = {
  DatabaseSync: new (
    path: string,
    options: { readOnly: boolean },
  ) => { prepare(sql: string): { all(): unknown[] }; close(): void };
};

async function withNodeSqlite(path: string, query: string): Promise<unknown[] | undefined> {
  let sqlite: Sqlite;
  try {
    sqlite = (await import("node:sqlite" as string)) as Sqlite;
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

function withSqlite3(path: string, query: string): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    execFile("sqlite3", ["-readonly", "-json", path, query], { timeout: 5_000 }, (error, out) => {
      if (error) reject(new Error(`sqlite3 could not read ${path}: ${error.message}`));
      else resolve(out.trim() === "" ? [] : (JSON.parse(out) as unknown[]));
    });
  });
}

/** The rows `query` selects from the database at `path`; throws when it cannot be read. */
export async function readSqliteRows(path: string, query: string): Promise<unknown[]> {
  return (await withNodeSqlite(path, query)) ?? (await withSqlite3(path, query));
}

/** What reads SQLite on this machine (`node:sqlite`, the sqlite3 program), or null for nothing. */
export function sqliteReader(env: Record<string, string | undefined>): string | null {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 13)) return "node:sqlite";
  try {
    execFileSync("sqlite3", ["-version"], { env, stdio: "ignore", timeout: 5_000 });
    return "the sqlite3 program";
  } catch {
    return null;
  }
}
