import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Todo, TodoStatus } from "../../core/types.js";

/**
 * Copilot keeps its todo list in the session's SQLite database
 * (`session-state/<id>/session.db`, beside the transcript), table `todos`,
 * written by the model through the `sql` tool. Read-only, with Node's own
 * `node:sqlite` (Node 22.13+) or else the `sqlite3` program; with neither the
 * list is unknown, and an unknown list is never nudged.
 */

const STATUSES: Record<string, TodoStatus> = {
  pending: "pending",
  in_progress: "in_progress",
  done: "completed",
  blocked: "blocked",
};

const QUERY = "SELECT id, title, description, status FROM todos";

export interface TodoRow {
  id: unknown;
  title: unknown;
  description?: unknown;
  status: unknown;
}

/** The database of the session whose transcript is at `transcriptPath`. */
export function sessionDatabase(transcriptPath: string): string {
  return join(dirname(transcriptPath), "session.db");
}

/** Rows to todos; a row with a status Copilot does not define makes the whole list unknown. */
export function todosFromRows(rows: readonly TodoRow[]): Todo[] {
  return rows.map((row) => {
    const status = typeof row.status === "string" ? STATUSES[row.status] : undefined;
    if (status === undefined || !Object.hasOwn(STATUSES, String(row.status))) {
      throw new Error(
        `todo ${JSON.stringify(row.id)} has an unknown status ${JSON.stringify(row.status)}`,
      );
    }
    const title = typeof row.title === "string" && row.title !== "" ? row.title : String(row.id);
    const todo: Todo = { id: String(row.id), content: title, status };
    if (status === "blocked") {
      todo.blockedReason =
        typeof row.description === "string" && row.description !== "" ? row.description : "blocked";
    }
    return todo;
  });
}

type Sqlite = {
  DatabaseSync: new (
    path: string,
    options: { readOnly: boolean },
  ) => { prepare(sql: string): { all(): unknown[] }; close(): void };
};

async function withNodeSqlite(path: string): Promise<TodoRow[] | undefined> {
  let sqlite: Sqlite;
  try {
    sqlite = (await import("node:sqlite" as string)) as Sqlite;
  } catch {
    return undefined; // Older Node: try the sqlite3 program.
  }
  const db = new sqlite.DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare(QUERY).all() as TodoRow[];
  } finally {
    db.close();
  }
}

function withSqlite3(path: string): Promise<TodoRow[]> {
  return new Promise((resolve, reject) => {
    execFile("sqlite3", ["-readonly", "-json", path, QUERY], { timeout: 5_000 }, (error, out) => {
      if (error) reject(new Error(`sqlite3 could not read ${path}: ${error.message}`));
      else resolve(out.trim() === "" ? [] : (JSON.parse(out) as TodoRow[]));
    });
  });
}

/**
 * The session's list: [] when the session never made one (no database yet),
 * or an error when it cannot be read (the caller allows the stop).
 */
export async function readCopilotTodos(transcriptPath: string): Promise<Todo[]> {
  const path = sessionDatabase(transcriptPath);
  if (!existsSync(path)) return [];
  const rows = (await withNodeSqlite(path)) ?? (await withSqlite3(path));
  return todosFromRows(rows);
}
