import type { QueryResultRow } from "pg";
import { emptyState, parseContinuationState } from "../../core/engine/state.js";
import { emptyList } from "../../core/todo/model.js";
import { parseTodoList } from "../../core/todo/parse.js";
import type { ScopeSnapshot, TransactionResult } from "../../core/types.js";

/**
 * The JavaScript side of a scope row: documents in, documents out. Reads go
 * through the fail-closed parsers; writes are checked before anything is sent.
 */

export interface ScopeRow extends QueryResultRow {
  key: string;
  todos: string;
  todos_revision: string;
  state: string;
  state_revision: string;
  version: string;
}

/** The JSON text of what a transaction writes, ready to bind. */
export interface PreparedWrite {
  todos: string | null;
  state: string | null;
  log: string;
  logCount: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function emptySnapshot(): ScopeSnapshot {
  return { todos: emptyList(), todosRevision: 0, state: emptyState(), stateRevision: 0 };
}

/** A row to a snapshot; documents go through the fail-closed parsers. */
export function readRow(row: ScopeRow | undefined): {
  snapshot: ScopeSnapshot;
  version: string | null;
} {
  if (row === undefined) return { snapshot: emptySnapshot(), version: null };
  return {
    snapshot: {
      todos: parseTodoList(parseJson(row.todos)),
      todosRevision: Number(row.todos_revision),
      state: parseContinuationState(parseJson(row.state)),
      stateRevision: Number(row.state_revision),
    },
    version: row.version,
  };
}

/**
 * Runs the caller's callback and checks what it returned, before anything is
 * written: a bad result throws and leaves both stored documents as they were.
 */
export function runCallback<R>(
  fn: (snapshot: ScopeSnapshot) => TransactionResult<R>,
  snapshot: ScopeSnapshot,
): TransactionResult<R> {
  const out: unknown = fn(snapshot);
  if (!isRecord(out)) {
    throw new TypeError("transact: the callback must return { result, todos?, state?, log? }");
  }
  if (typeof out.then === "function") {
    throw new TypeError("transact: the callback must be synchronous (it returned a promise)");
  }
  return out as unknown as TransactionResult<R>;
}

export function prepareWrite(
  out: TransactionResult<unknown>,
  logLimit: number,
): PreparedWrite | null {
  const { todos, state, log } = out;
  if (todos !== undefined) {
    if (!isRecord(todos) || !Array.isArray(todos.todos) || !Array.isArray(todos.phases)) {
      throw new TypeError("transact: result.todos must be a todo list { todos, phases, nextId }");
    }
  }
  if (state !== undefined && (!isRecord(state) || state.version !== 1)) {
    throw new TypeError("transact: result.state must be a continuation state (version 1)");
  }
  if (log !== undefined && (!Array.isArray(log) || !log.every(isRecord))) {
    throw new TypeError("transact: result.log must be an array of decision-log entries");
  }
  const entries = (log ?? []).slice(-logLimit);
  if (todos === undefined && state === undefined && entries.length === 0) return null;
  return {
    todos: todos === undefined ? null : JSON.stringify(todos),
    state: state === undefined ? null : JSON.stringify(state),
    log: JSON.stringify(entries),
    logCount: entries.length,
  };
}
