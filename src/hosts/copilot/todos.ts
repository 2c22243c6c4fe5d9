import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Todo, TodoStatus } from "../../core/types.js";
import { readSqliteTableRows } from "../hook-kit/sqlite-read.js";

/**
 * Copilot keeps its todo list in the session's SQLite database
 * (`session-state/<id>/session.db`, beside the transcript), table `todos`,
 * written by the model through the `sql` tool, read with the kit's
 * `readSqliteTableRows` (in-process, no program spawned); a list that cannot be
 * read is never nudged.
 */

const STATUSES: Record<string, TodoStatus> = {
  pending: "pending",
  in_progress: "in_progress",
  done: "completed",
  blocked: "blocked",
};

const COLUMNS = ["id", "title", "description", "status"] as const;

export type TodoRow = { id: unknown; title: unknown; description?: unknown; status: unknown };

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

/**
 * The session's list: [] when the session never made one (no database yet),
 * or an error when it cannot be read (the caller allows the stop).
 */
export function readCopilotTodos(transcriptPath: string): Todo[] {
  const path = join(dirname(transcriptPath), "session.db");
  if (!existsSync(path)) return [];
  return todosFromRows(readSqliteTableRows(path, "todos", COLUMNS) as TodoRow[]);
}
