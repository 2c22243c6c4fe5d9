/**
 * A child process for the multi-process tests, run with plain `node` after
 * `transpileForChild`. Arguments: `<mode> <root> <count>`.
 *
 * - `count`: increments the counter kept in the first todo ("count N") of the
 *   shared scope `count` times, then exits.
 * - `exit`: writes once and exits at once, before its lock would be released.
 * - `write`: writes generation after generation of both documents, each
 *   derived from its number so a reader can check it is whole, printing each
 *   committed number on stdout, until killed.
 */
import { resolveScope } from "../../../core/scope/scope.js";
import type { ContinuationState, TodoList } from "../../../core/types.js";
import { createFileStore } from "../file-store.js";

export const SHARED_SCOPE = resolveScope({ kind: "cron", jobId: "shared" })!;

export function counterOf(list: TodoList): number {
  const match = /^count (\d+)$/.exec(list.todos[0]?.content ?? "");
  return match ? Number(match[1]) : 0;
}

export function counterList(value: number): TodoList {
  return { todos: [{ content: `count ${value}`, status: "pending" }], phases: [], nextId: 1 };
}

/** The list of generation `n`: its size and every item depend on `n`. */
export function generationList(n: number): TodoList {
  return {
    todos: Array.from({ length: (n % 7) + 1 }, (_, i) => ({
      content: `generation ${n} item ${i} ${"x".repeat((n * 31 + i) % 200)}`,
      status: i % 2 === 0 ? "pending" : "completed",
      notes: [`written as generation ${n}`],
    })),
    phases: [],
    nextId: 1,
  };
}

export function generationState(n: number, base: ContinuationState): ContinuationState {
  return { ...base, lastUserTurnAt: n, stopped: n % 2 === 0 };
}

/** The generation a list holds, or null when it is not exactly one `generationList` produces. */
export function generationOf(list: TodoList): number | null {
  const match = /^generation (\d+) item 0 /.exec(list.todos[0]?.content ?? "");
  if (!match) return list.todos.length === 0 ? 0 : null;
  const n = Number(match[1]);
  return JSON.stringify(list) === JSON.stringify(generationList(n)) ? n : null;
}

async function main(): Promise<void> {
  const [mode, root, countText] = process.argv.slice(2);
  if (root === undefined) throw new Error("usage: child <count|write> <root> [count]");
  const store = createFileStore({ root });
  if (mode === "count") {
    const count = Number(countText);
    for (let i = 0; i < count; i++) {
      await store.transact(SHARED_SCOPE, (snapshot) => ({
        todos: counterList(counterOf(snapshot.todos) + 1),
        result: null,
      }));
      // Let the event loop turn, so the lock is released and every increment
      // competes for it afresh with the other processes.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return;
  }
  if (mode === "exit") {
    // Exits straight after a transaction, before the event loop turns again.
    await store.transact(SHARED_SCOPE, () => ({ todos: counterList(1), result: null }));
    process.exit(0);
  }
  if (mode === "write") {
    for (;;) {
      const n = await store.transact(SHARED_SCOPE, (snapshot) => {
        const next = (generationOf(snapshot.todos) ?? 0) + 1;
        return {
          todos: generationList(next),
          state: generationState(next, snapshot.state),
          result: next,
        };
      });
      // Pipes are synchronous on Linux: the number is out before the next write starts.
      process.stdout.write(`${n}\n`);
    }
  }
  throw new Error(`unknown mode ${mode}`);
}

if (process.argv[1]?.endsWith("child.js")) {
  main().catch((error) => {
    process.stderr.write(`${(error as Error).stack ?? error}\n`);
    process.exit(1);
  });
}
