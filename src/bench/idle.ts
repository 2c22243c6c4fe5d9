import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { resolveScope } from "../core/scope/scope.js";
import type { Todo } from "../core/types.js";
import { IdleEnforcer } from "../runtime/enforcer.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { createFileStore } from "../store/file/file-store.js";

/**
 * Milliseconds from a session going idle to the nudge being handed to the
 * host, through the idle enforcer as the OpenCode plugin runs it (no
 * debounce, no countdown): the host's list is refreshed into a real file
 * store, the decision is made and persisted, then delivered. The host's own
 * calls answer at once, so this is our share of the idle-to-nudge path.
 */
export async function benchIdleToNudge(options: {
  iterations: number;
  dir: string;
}): Promise<number[]> {
  const root = mkdtempSync(join(options.dir, "idle-"));
  const store = createFileStore({ root });
  const runtime = new ContinuationRuntime({ store });
  const hostTodos: Todo[] = [
    { content: "write the parser", status: "completed" },
    { content: "add tests", status: "in_progress" },
    { content: "update the docs", status: "pending" },
  ];
  let delivered: (() => void) | null = null;
  const enforcer = new IdleEnforcer({
    runtime,
    scopeFor: (sessionId) => resolveScope({ kind: "session", host: "bench", sessionId }),
    fetchTodos: async () => hostTodos,
    deliver: async () => delivered?.(),
    debounceMs: 0,
    countdownMs: 0,
  });
  const times: number[] = [];
  try {
    for (let i = -5; i < options.iterations; i++) {
      const session = "ses_bench";
      await enforcer.userMessage(session);
      await enforcer.assistantMessage(session, { stopReason: "stop", turnId: `turn-${i}` });
      const done = new Promise<void>((resolve) => {
        delivered = resolve;
      });
      const start = process.hrtime.bigint();
      enforcer.idle(session);
      // The enforcer's timers do not hold the process open; settle() does meanwhile.
      const [ms] = await Promise.all([
        done.then(() => Number(process.hrtime.bigint() - start) / 1e6),
        enforcer.settle(),
      ]);
      if (i >= 0) times.push(ms);
    }
  } finally {
    enforcer.dispose();
    await store.close();
    rmSync(root, { recursive: true, force: true });
  }
  return times;
}
