import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { emptyState } from "../core/engine/state.js";
import { FLUSH_BESIDE } from "../core/resident.js";
import { resolveScope } from "../core/scope/scope.js";
import type { TodoList } from "../core/types.js";
import { openAfterAnswer, runAfterAnswer } from "../hosts/hook-kit/server/after-answer.js";
import { startFlushHelper } from "../hosts/hook-kit/server/flush-helper.js";
import { createFileStore } from "../store/file/file-store.js";

/**
 * A stop's commit as the resident hook server runs it (a replaced document's old file freed and
 * the folders flushed after the answer: `release-later.ts`, `flush-later.ts`; two documents'
 * temporaries flushed side by side on the server's helper thread: `flush-helper.ts`) against the same
 * commit in a hook's own process (everything in the commit), interleaved, each after the pause
 * hooks have between events. Microseconds per commit, each variant's, and the server's work
 * after the answer, timed apart: the hook does not wait for it, the machine does it all the same.
 */
export interface ServerCommitBench {
  inServer: number[];
  afterAnswer: number[];
  inPlace: number[];
}

const list = (round: number): TodoList => ({
  todos: [
    { content: `Update the module (round ${round})`, status: "in_progress" },
    { content: "Write its tests", status: "pending" },
  ],
  phases: [],
  nextId: 1,
});

/** `documents`: 1 replaces the state (every stop), 2 the list too (a Copilot CLI stop after progress). */
export async function benchServerCommit(options: {
  dir: string;
  iterations: number;
  documents: 1 | 2;
  pauseMs: number;
}): Promise<ServerCommitBench> {
  const work = mkdtempSync(join(options.dir, "server-commit-bench-"));
  const store = createFileStore({ root: work });
  const scope = resolveScope({ kind: "session", host: "bench", sessionId: "commit" })!;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const out: ServerCommitBench = { inServer: [], afterAnswer: [], inPlace: [] };
  const since = (start: bigint) => Number(process.hrtime.bigint() - start) / 1000;
  const helper = startFlushHelper();
  const globals = globalThis as Record<symbol, unknown>;
  try {
    // As the server starts it: before any event, so it waits when the first one comes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await store.transact(scope, () => ({ todos: list(0), state: emptyState(), result: null }));
    for (let i = 0; i < 2 * options.iterations; i++) {
      const inServer = i % 2 === 1;
      Atomics.wait(pause, 0, 0, options.pauseMs);
      if (inServer) {
        openAfterAnswer();
        globals[FLUSH_BESIDE] = helper.flushBeside;
      }
      const start = process.hrtime.bigint();
      // A new state each time, as a stop's nudge makes (a stop marker's change is left out: it
      // keeps the folders' flush in the commit).
      await store.transact(scope, (s) => ({
        ...(options.documents === 2 ? { todos: list(i + 1) } : {}),
        state: { ...s.state, lastUserTurnAt: 1_800_000_000_000 + i },
        result: null,
      }));
      (inServer ? out.inServer : out.inPlace).push(since(start));
      delete globals[FLUSH_BESIDE];
      if (inServer) {
        const after = process.hrtime.bigint();
        runAfterAnswer();
        out.afterAnswer.push(since(after));
      }
    }
    return out;
  } finally {
    delete globals[FLUSH_BESIDE];
    await helper.stop();
    await store.close();
    rmSync(work, { recursive: true, force: true });
  }
}
