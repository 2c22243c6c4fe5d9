import { createHash } from "node:crypto";
import type { QueryConfig } from "pg";
import { quoteIdentifier } from "./schema.js";

/** SQL text of every statement the store runs, for one schema. */
export interface StatementTexts {
  /** Rows of many scopes at once ($1 text[]); missing scopes have no row. */
  read: string;
  readForUpdate: string;
  /** Bounds the lock waits of the transaction it runs in ($1: milliseconds). */
  lockTimeout: string;
  /** Creates the scope row if absent; used only before a locked read. */
  placeholder: string;
  /** Creates the scope row with its first write; does nothing if it already exists. */
  insert: string;
  /**
   * Compare-and-set write: the row is written only if its write token is
   * still the one read; the log is appended and trimmed in the same
   * statement. Returns the key when written, nothing when the race was lost
   * or another session holds the row locked (it is skipped, never waited for).
   */
  update: string;
  /** `update` for many scopes in one statement (one commit); returns the keys written. */
  updateMany: string;
  listScopes: string;
  /**
   * Many scopes in one round trip: $1 keys, $2 how many newest log entries
   * each (capped by the caller). Keys without a row come back with null
   * documents; the log comes back oldest first as one JSON array text.
   */
  scan: string;
  /** Newest first, at most $2 entries (the store passes at most its log limit). */
  readLog: string;
  deleteScope: string;
  deleteLog: string;
}

const ROW = `key, todos::text AS todos, todos_revision::text AS todos_revision,
  state::text AS state, state_revision::text AS state_revision, version::text AS version`;

/**
 * The SET list of a compare-and-set write on the row aliased `sc`; a null
 * document keeps the stored one.
 */
function setList(todos: string, state: string, logCount: string, token: string): string {
  return `todos = coalesce(${todos}, sc.todos),
          todos_revision = sc.todos_revision + CASE WHEN ${todos} IS NULL THEN 0 ELSE 1 END,
          state = coalesce(${state}, sc.state),
          state_revision = sc.state_revision + CASE WHEN ${state} IS NULL THEN 0 ELSE 1 END,
          version = ${token},
          log_seq = sc.log_seq + ${logCount},
          updated_at = now()`;
}

/**
 * Log entries are trimmed in steps: only a write whose entries cross a
 * multiple of this deletes, taking everything older than the newest `limit`. A
 * scope so holds up to `TRIM_STEP - 1` entries past the limit, which reads
 * never return; most writes skip the delete entirely.
 */
export const TRIM_STEP = 16;

function trim(s: string, count: string, limit: string): string {
  return `
        DELETE FROM ${s}.decision_log d
        USING (SELECT key, log_seq FROM up
               WHERE up.log_seq / ${TRIM_STEP} > (up.log_seq - ${count}) / ${TRIM_STEP}) t
        WHERE d.scope_key = t.key AND d.seq <= t.log_seq - ${limit}`;
}

export function statementTexts(schema: string): StatementTexts {
  const s = quoteIdentifier(schema);
  const token = `nextval('${s}.write_token')`;
  return {
    read: `SELECT ${ROW} FROM ${s}.scopes WHERE key = ANY($1::text[])`,
    readForUpdate: `SELECT ${ROW} FROM ${s}.scopes WHERE key = $1 FOR UPDATE`,
    lockTimeout: "SELECT set_config('lock_timeout', $1::text || 'ms', true)",
    placeholder: `INSERT INTO ${s}.scopes (key, kind, todos, state, version)
      VALUES ($1, $2, $3::json, $4::json, ${token}) ON CONFLICT (key) DO NOTHING`,
    // $1 key, $2 kind, $3 todos, $4 todos revision, $5 state, $6 state revision,
    // $7 log count, $8 log entries (a JSON array). Entries left by a scope row
    // deleted by hand are removed, and numbering continues after them so the
    // new entries can never collide with one.
    insert: `WITH leftover AS (
        SELECT coalesce(max(seq), 0) AS base FROM ${s}.decision_log WHERE scope_key = $1
      ), up AS (
        INSERT INTO ${s}.scopes (key, kind, todos, todos_revision, state, state_revision, version, log_seq)
        SELECT $1, $2, $3::json, $4, $5::json, $6, ${token}, leftover.base + $7 FROM leftover
        ON CONFLICT (key) DO NOTHING
        RETURNING log_seq
      ), cleared AS (
        DELETE FROM ${s}.decision_log d USING up WHERE d.scope_key = $1 AND d.seq <= up.log_seq - $7
      ), appended AS (
        INSERT INTO ${s}.decision_log (scope_key, seq, entry)
        SELECT $1, up.log_seq - $7 + e.ord, e.entry
        FROM up, json_array_elements($8::json) WITH ORDINALITY AS e(entry, ord)
      )
      SELECT log_seq::text AS log_seq FROM up`,
    // $1 key, $2 expected token, $3 todos (null = keep), $4 state (null = keep),
    // $5 log count, $6 log entries (a JSON array), $7 log limit
    // A row another session holds locked is skipped, not waited for: the
    // write reports a lost race, and the transaction's locked attempt waits
    // for it with a bounded lock_timeout.
    update: `WITH target AS (
        SELECT key FROM ${s}.scopes WHERE key = $1 AND version = $2::bigint
        FOR UPDATE SKIP LOCKED
      ), up AS (
        UPDATE ${s}.scopes AS sc SET ${setList("$3::json", "$4::json", "$5", token)}
        FROM target t
        WHERE sc.key = t.key AND sc.version = $2::bigint
        RETURNING sc.key, sc.log_seq
      ), appended AS (
        INSERT INTO ${s}.decision_log (scope_key, seq, entry)
        SELECT up.key, up.log_seq - $5 + e.ord, e.entry
        FROM up, json_array_elements($6::json) WITH ORDINALITY AS e(entry, ord)
      ), trimmed AS (${trim(s, "$5", "$7")}
      )
      SELECT key FROM up`,
    // The same for many scopes, as arrays with one element per scope: $1 keys
    // (sorted, so concurrent batches take row locks in one order), $2 expected
    // tokens, $3 todos, $4 states (null = keep), $5 log counts, $6 log entries;
    // $7 log limit. Documents travel as json[]: json_to_recordset would refuse
    // the \u0000 escapes that the json type keeps.
    updateMany: `WITH input AS (
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::json[], $4::json[], $5::int[], $6::json[])
          AS i(key, expected, todos, state, n, log)
      ), target AS (
        SELECT sc.key FROM ${s}.scopes sc JOIN input i ON sc.key = i.key AND sc.version = i.expected
        ORDER BY sc.key FOR UPDATE OF sc SKIP LOCKED
      ), up AS (
        UPDATE ${s}.scopes AS sc SET ${setList("i.todos", "i.state", "i.n", token)}
        FROM input i, target t
        WHERE sc.key = i.key AND t.key = i.key AND sc.version = i.expected
        RETURNING sc.key, sc.log_seq, i.n, i.log
      ), appended AS (
        INSERT INTO ${s}.decision_log (scope_key, seq, entry)
        SELECT up.key, up.log_seq - up.n + e.ord, e.entry
        FROM up, json_array_elements(up.log) WITH ORDINALITY AS e(entry, ord)
      ), trimmed AS (${trim(s, "up.n", "$7")}
      )
      SELECT key FROM up`,
    listScopes: `SELECT key FROM ${s}.scopes`,
    scan: `SELECT k.key, sc.key IS NOT NULL AS found, sc.todos::text AS todos,
        sc.todos_revision::text AS todos_revision, sc.state::text AS state,
        sc.state_revision::text AS state_revision, sc.version::text AS version,
        (SELECT coalesce(json_agg(t.entry ORDER BY t.seq), '[]'::json)::text
           FROM (SELECT d.seq, d.entry FROM ${s}.decision_log d
                 WHERE d.scope_key = k.key ORDER BY d.seq DESC LIMIT k.tail) t) AS log
      FROM unnest($1::text[], $2::int[]) AS k(key, tail)
      LEFT JOIN ${s}.scopes sc ON sc.key = k.key`,
    readLog: `SELECT entry::text AS entry FROM ${s}.decision_log
      WHERE scope_key = $1 ORDER BY seq DESC LIMIT $2`,
    deleteScope: `DELETE FROM ${s}.scopes WHERE key = $1`,
    deleteLog: `DELETE FROM ${s}.decision_log WHERE scope_key = $1`,
  };
}

export type StatementName = keyof StatementTexts;

/**
 * Named (server-side prepared) statements: each connection parses and plans
 * a statement once, then only binds values. The name carries a hash of the
 * schema so stores on different schemas can share a pool.
 */
export class Statements {
  readonly #texts: StatementTexts;
  readonly #prefix: string;

  constructor(schema: string) {
    this.#texts = statementTexts(schema);
    this.#prefix = `tc_${createHash("sha256").update(schema).digest("hex").slice(0, 12)}_`;
  }

  config(name: StatementName, values: unknown[]): QueryConfig {
    return { name: this.#prefix + name, text: this.#texts[name], values };
  }
}
