import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { emptyState } from "../core/engine/state.js";
import { resolveScope } from "../core/scope/scope.js";
import type { TodoList } from "../core/types.js";
import { openAfterAnswer, runAfterAnswer } from "../hosts/hook-kit/server/after-answer.js";
import { createFileStore } from "../store/file/file-store.js";

/**
 * A stop's commit as the resident hook server runs it (a replaced document's old file freed
 * after the answer, `release-later.ts`) against the same commit freeing it in place (a hook's
 * own process), interleaved, each after the pause hooks have between events. Microseconds per
 * commit, each variant's; the server's removals after the answer are not timed.
 */
export interface ReleaseBench {
  inServer: number[];
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
export async function benchReleaseAfterAnswer(options: {
  dir: string;
  iterations: number;
  documents: 1 | 2;
  pauseMs: number;
}): Promise<ReleaseBench> {
  const work = mkdtempSync(join(options.dir, "release-bench-"));
  const store = createFileStore({ root: work });
  const scope = resolveScope({ kind: "session", host: "bench", sessionId: "release" })!;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const out: ReleaseBench = { inServer: [], inPlace: [] };
  try {
    await store.transact(scope, () => ({ todos: list(0), state: emptyState(), result: null }));
    for (let i = 0; i < 2 * options.iterations; i++) {
      const inServer = i % 2 === 1;
      Atomics.wait(pause, 0, 0, options.pauseMs);
      if (inServer) openAfterAnswer();
      const start = process.hrtime.bigint();
      await store.transact(scope, (s) => ({
        ...(options.documents === 2 ? { todos: list(i + 1) } : {}),
        state: { ...s.state, stopped: i % 4 < 2 },
        result: null,
      }));
      const micros = Number(process.hrtime.bigint() - start) / 1000;
      if (inServer) runAfterAnswer();
      (inServer ? out.inServer : out.inPlace).push(micros);
    }
    return out;
  } finally {
    await store.close();
    rmSync(work, { recursive: true, force: true });
  }
}
