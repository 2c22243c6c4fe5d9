import { execFileSync } from "node:child_process";

/** Whether the `sqlite3` program is on PATH: tests that write real SQLite files with it skip without. */
export const hasSqlite3 = (() => {
  try {
    execFileSync("sqlite3", ["-version"]);
    return true;
  } catch {
    return false;
  }
})();
