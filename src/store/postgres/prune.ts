import type { PoolClient } from "pg";
import type { DecisionLogEntry, Scope, ScopeSnapshot } from "../../core/types.js";
import { parseLogEntryText } from "./log-entry.js";
import { quoteIdentifier } from "./schema.js";
import { readRow, type ScopeRow } from "./snapshot.js";

/** One scope's rows as stored, for an archive that can be restored as it was. */
export interface ScopeRows {
  scope: Record<string, unknown>;
  log: { seq: string; entry: string }[];
}

export type RowPruneOutcome = "pruned" | "locked" | "kept" | "missing";

/** Postgres's "lock not available" (a NOWAIT lock another transaction holds). */
const LOCK_NOT_AVAILABLE = "55P03";

/**
 * Inside one transaction: locks the scope's row without waiting, reads it
 * and its log, asks `decide` (which may write an archive of the rows) and
 * deletes both when it answers true. A row another transaction holds is
 * `locked` and left alone; nothing is deleted unless `decide` returned.
 */
export async function pruneRows(
  client: PoolClient,
  schema: string,
  scope: Scope,
  decide: (input: {
    snapshot: ScopeSnapshot;
    last: DecisionLogEntry | null;
    rows: ScopeRows;
  }) => Promise<boolean>,
): Promise<{ commit: boolean; value: RowPruneOutcome }> {
  const s = quoteIdentifier(schema);
  let found: ScopeRow[];
  try {
    found = (
      await client.query<ScopeRow>(
        `SELECT key, kind, todos::text AS todos, todos_revision::text AS todos_revision,
                state::text AS state, state_revision::text AS state_revision,
                version::text AS version, log_seq::text AS log_seq, updated_at
           FROM ${s}.scopes WHERE key = $1 FOR UPDATE NOWAIT`,
        [scope.key],
      )
    ).rows;
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) {
      return { commit: false, value: "locked" };
    }
    throw error;
  }
  const row = found[0];
  if (row === undefined) return { commit: false, value: "missing" };
  const log = (
    await client.query<{ seq: string; entry: string }>(
      `SELECT seq::text AS seq, entry::text AS entry FROM ${s}.decision_log
        WHERE scope_key = $1 ORDER BY seq`,
      [scope.key],
    )
  ).rows;
  const lastText = log.at(-1)?.entry;
  const last = lastText === undefined ? null : parseLogEntryText(lastText);
  const go = await decide({
    snapshot: readRow(row).snapshot,
    last,
    rows: { scope: { ...row, updated_at: new Date(row.updated_at as string).toISOString() }, log },
  });
  if (!go) return { commit: false, value: "kept" };
  await client.query(`DELETE FROM ${s}.decision_log WHERE scope_key = $1`, [scope.key]);
  await client.query(`DELETE FROM ${s}.scopes WHERE key = $1`, [scope.key]);
  return { commit: true, value: "pruned" };
}

/**
 * Puts an archived scope back (`prune --restore`): the row and its log as
 * they were. A scope that exists again meanwhile is not overwritten.
 */
export async function restoreRows(
  client: PoolClient,
  schema: string,
  rows: ScopeRows,
): Promise<{ commit: boolean; value: boolean }> {
  const s = quoteIdentifier(schema);
  const r = rows.scope;
  const inserted = await client.query(
    `INSERT INTO ${s}.scopes (key, kind, todos, todos_revision, state, state_revision, version, log_seq, updated_at)
     VALUES ($1, $2, $3::json, $4, $5::json, $6, $7, $8, $9)
     ON CONFLICT (key) DO NOTHING`,
    [
      r.key,
      r.kind,
      r.todos,
      r.todos_revision,
      r.state,
      r.state_revision,
      r.version,
      r.log_seq,
      r.updated_at,
    ],
  );
  if (inserted.rowCount !== 1) return { commit: false, value: false };
  for (const entry of rows.log) {
    await client.query(
      `INSERT INTO ${s}.decision_log (scope_key, seq, entry) VALUES ($1, $2, $3::json)`,
      [r.key, entry.seq, entry.entry],
    );
  }
  return { commit: true, value: true };
}
