/** What the benchmark's parent and worker processes share: messages and the scopes. */
import { resolveScope } from "../../core/scope/scope.js";
import type { Scope, TodoList } from "../../core/types.js";

export interface WorkerStart {
  type: "start";
  index: number;
  connectionString: string;
  schema: string;
  scopes: number;
  lanes: number;
  /**
   * `store`: atomic decisions through the PostgreSQL store. `raw`: the
   * baseline, one compare-and-set statement per decision on a bare table,
   * over the same connections and lanes.
   */
  mode: "store" | "raw";
}

/** Connections each worker opens, in both modes. */
export const WORKER_POOL_SIZE = 6;

/** The baseline's table: one row per scope, a revision and the state document. */
export const RAW_TABLE = "raw_cas";

export interface WorkerReport {
  type: "done";
  decisions: number;
  injections: number;
  elapsedMs: number;
  conflicts: number;
  lockedFallbacks: number;
}

export type ParentMessage = WorkerStart | { type: "go"; durationMs: number };
export type WorkerMessage = { type: "ready" } | WorkerReport | { type: "failed"; error: string };

export function benchScope(i: number): Scope {
  return resolveScope({ kind: "session", host: "bench", sessionId: `scope-${i}` })!;
}

/** A realistic list: six items, two done, one running. */
export function benchList(i: number): TodoList {
  const statuses = ["completed", "completed", "in_progress", "pending", "pending", "pending"];
  return {
    todos: statuses.map((status, n) => ({
      content: `Scope ${i}: step ${n + 1} of the migration plan, with a sentence of detail`,
      status: status as TodoList["todos"][number]["status"],
    })),
    phases: [],
    nextId: 1,
  };
}
