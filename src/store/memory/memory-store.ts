import { emptyState, parseContinuationState } from "../../core/engine/state.js";
import { assertScope } from "../../core/scope/scope.js";
import { emptyList } from "../../core/todo/model.js";
import { parseTodoList } from "../../core/todo/parse.js";
import type {
  DecisionLogEntry,
  Scope,
  ScopeSnapshot,
  Store,
  TransactionResult,
} from "../../core/types.js";

/** Decision-log entries kept per scope unless told otherwise. */
export const DEFAULT_LOG_LIMIT = 200;

interface Entry {
  scope: Scope;
  todos: string;
  todosRevision: number;
  state: string;
  stateRevision: number;
  log: DecisionLogEntry[];
}

export interface MemoryStoreOptions {
  logLimit?: number;
}

/**
 * An in-process store for tests and short-lived runtimes. Documents are kept
 * as JSON text so callers can never mutate stored state by reference, and go
 * through the same fail-closed parsers as the file store.
 */
export class MemoryStore implements Store {
  readonly #entries = new Map<string, Entry>();
  readonly #logLimit: number;
  #closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.#logLimit = options.logLimit ?? DEFAULT_LOG_LIMIT;
  }

  #snapshot(scope: Scope): ScopeSnapshot {
    const entry = this.#entries.get(scope.key);
    if (!entry) {
      return { todos: emptyList(), todosRevision: 0, state: emptyState(), stateRevision: 0 };
    }
    return {
      todos: parseTodoList(JSON.parse(entry.todos)),
      todosRevision: entry.todosRevision,
      state: parseContinuationState(JSON.parse(entry.state)),
      stateRevision: entry.stateRevision,
    };
  }

  #assertOpen(scope?: Scope): void {
    if (this.#closed) throw new Error("MemoryStore: the store is closed");
    if (scope !== undefined) assertScope(scope);
  }

  async read(scope: Scope): Promise<ScopeSnapshot> {
    this.#assertOpen(scope);
    return this.#snapshot(scope);
  }

  async transact<R>(
    scope: Scope,
    fn: (snapshot: ScopeSnapshot) => TransactionResult<R>,
  ): Promise<R> {
    this.#assertOpen(scope);
    // Synchronous from read to write: nothing can interleave on one event loop.
    const snapshot = this.#snapshot(scope);
    const out = fn(snapshot);
    if (out.todos === undefined && out.state === undefined && !out.log?.length) return out.result;
    // Everything is computed before anything is stored: a bad document or log
    // throws here and leaves the scope as it was, so a decision's state and
    // its log entries are kept together or not at all.
    if (
      out.log !== undefined &&
      (!Array.isArray(out.log) ||
        !out.log.every((e) => typeof e === "object" && e !== null && !Array.isArray(e)))
    ) {
      throw new TypeError("MemoryStore: transaction returned a log that is not a list of entries");
    }
    const prev = this.#entries.get(scope.key);
    const todos = out.todos === undefined ? null : JSON.stringify(out.todos);
    const state = out.state === undefined ? null : JSON.stringify(out.state);
    const added = (out.log ?? []).map((e) => ({ ...e }));
    const log = [...(prev?.log ?? []), ...added];
    if (log.length > this.#logLimit) log.splice(0, log.length - this.#logLimit);
    this.#entries.set(scope.key, {
      scope: prev?.scope ?? { ...scope },
      todos: todos ?? prev?.todos ?? JSON.stringify(emptyList()),
      todosRevision: todos === null ? snapshot.todosRevision : snapshot.todosRevision + 1,
      state: state ?? prev?.state ?? JSON.stringify(emptyState()),
      stateRevision: state === null ? snapshot.stateRevision : snapshot.stateRevision + 1,
      log,
    });
    return out.result;
  }

  async listScopes(): Promise<Scope[]> {
    this.#assertOpen();
    return [...this.#entries.values()]
      .map((e) => ({ ...e.scope }))
      .sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  async readLog(scope: Scope, limit?: number): Promise<DecisionLogEntry[]> {
    this.#assertOpen(scope);
    const log = this.#entries.get(scope.key)?.log ?? [];
    const slice = limit === undefined ? log : limit > 0 ? log.slice(-limit) : [];
    return slice.map((e) => ({ ...e }));
  }

  async deleteScope(scope: Scope): Promise<void> {
    this.#assertOpen(scope);
    this.#entries.delete(scope.key);
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}
