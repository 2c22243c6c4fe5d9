import type { DecisionLogEntry, Scope, ScopeScan } from "../../core/types.js";
import { parseLogEntry } from "./log-entry.js";
import { readRow, type ScopeRow } from "./snapshot.js";

/** A row of the `scan` statement: the scope's row (null documents when absent) and its log tail. */
export interface ScanRow extends Omit<ScopeRow, "todos" | "state"> {
  found: boolean;
  todos: string | null;
  state: string | null;
  /** JSON array text of the newest entries, oldest first. */
  log: string;
}

function logOf(text: string): DecisionLogEntry[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item) => {
    const entry = parseLogEntry(item);
    return entry === null ? [] : [entry];
  });
}

/** One scanned scope from its row, as `read` and `readLog` would give it. */
export function scanFromRow(scope: Scope, row: ScanRow | undefined): ScopeScan {
  const stored = row?.found === true ? (row as unknown as ScopeRow) : undefined;
  const { snapshot } = readRow(stored);
  const log = row === undefined ? [] : logOf(row.log);
  return {
    scope,
    ok: true,
    snapshot,
    log,
    problems: [],
    exists: stored !== undefined || log.length > 0,
  };
}
