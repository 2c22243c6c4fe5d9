import { isIncomplete } from "../core/todo/model.js";
import type { Scope, Todo, TodoList } from "../core/types.js";
import type { ContinuationRuntime } from "./runtime.js";

/** Seed 004's default: finished items leave the list a minute after they finish. */
export const DEFAULT_CLEAR_DELAY_MS = 60_000;

function itemKey(todo: Todo): string {
  return JSON.stringify([todo.id ?? null, todo.phase ?? null, todo.content]);
}

/**
 * Removes completed and cancelled items a while after they finish, so long
 * sessions keep short lists. `delayMs < 0` disables it; `0` clears at once
 * (on the next tick). Finish times live in memory: after a restart an item
 * gets a fresh delay, which errs on the side of keeping it.
 */
export class FinishedItemSweeper {
  readonly #runtime: ContinuationRuntime;
  readonly #delayMs: number;
  readonly #finishedAt = new Map<string, Map<string, number>>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #scopes = new Map<string, Scope>();

  constructor(runtime: ContinuationRuntime, delayMs: number = DEFAULT_CLEAR_DELAY_MS) {
    if (!Number.isFinite(delayMs)) {
      throw new Error(`FinishedItemSweeper: delayMs must be a finite number (got ${delayMs})`);
    }
    this.#runtime = runtime;
    this.#delayMs = delayMs;
  }

  /** Call after every write of the scope's list; notes newly finished items and arms the timer. */
  observe(scope: Scope, list: TodoList): void {
    if (this.#delayMs < 0) return;
    const now = this.#runtime.now();
    const seen = this.#finishedAt.get(scope.key) ?? new Map<string, number>();
    const finished = new Set<string>();
    for (const todo of list.todos) {
      if (isIncomplete(todo.status)) continue;
      const key = itemKey(todo);
      finished.add(key);
      if (!seen.has(key)) seen.set(key, now);
    }
    // Items reopened or removed since stop counting.
    for (const key of seen.keys()) if (!finished.has(key)) seen.delete(key);
    if (seen.size === 0) {
      this.#forget(scope.key);
      return;
    }
    this.#finishedAt.set(scope.key, seen);
    this.#scopes.set(scope.key, scope);
    this.#arm(scope.key);
  }

  #arm(key: string): void {
    const seen = this.#finishedAt.get(key);
    if (!seen || seen.size === 0) return;
    const due = Math.min(...seen.values()) + this.#delayMs;
    const existing = this.#timers.get(key);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => void this.#sweep(key), Math.max(0, due - this.#runtime.now()));
    timer.unref();
    this.#timers.set(key, timer);
  }

  async #sweep(key: string): Promise<void> {
    this.#timers.delete(key);
    const scope = this.#scopes.get(key);
    const seen = this.#finishedAt.get(key);
    if (!scope || !seen) return;
    const cutoff = this.#runtime.now() - this.#delayMs;
    const due = new Set([...seen].filter(([, at]) => at <= cutoff).map(([k]) => k));
    if (due.size > 0) {
      await this.#runtime.store.transact(scope, (snap) => {
        const todos = snap.todos.todos.filter(
          (t) => isIncomplete(t.status) || !due.has(itemKey(t)),
        );
        if (todos.length === snap.todos.todos.length) return { result: undefined };
        return { todos: { ...snap.todos, todos }, result: undefined };
      });
      for (const k of due) seen.delete(k);
    }
    if (seen.size === 0) this.#forget(key);
    else this.#arm(key);
  }

  #forget(key: string): void {
    const timer = this.#timers.get(key);
    if (timer) clearTimeout(timer);
    this.#timers.delete(key);
    this.#finishedAt.delete(key);
    this.#scopes.delete(key);
  }

  dispose(): void {
    for (const key of [...this.#timers.keys()]) this.#forget(key);
  }
}
