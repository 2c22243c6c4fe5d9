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
  // The agent works its list after every user message (the in-progress item
  // moves on), as a session that is nudged does: a list left as the user saw
  // it is not nudged at all (`list-unchanged-since-user`).
  let round = 0;
  const hostTodos = (): Todo[] => [
    { content: "write the parser", status: "completed" },
    { content: `add tests, round ${round}`, status: "in_progress" },
    { content: "update the docs", status: "pending" },
  ];
  let deliveredAt: bigint | null = null;
  const enforcer = new IdleEnforcer({
    runtime,
    scopeFor: (sessionId) => resolveScope({ kind: "session", host: "bench", sessionId }),
    fetchTodos: async () => hostTodos(),
    deliver: async () => {
      deliveredAt = process.hrtime.bigint();
    },
    debounceMs: 0,
    countdownMs: 0,
  });
  const times: number[] = [];
  try {
    for (let i = -5; i < options.iterations; i++) {
      const session = "ses_bench";
      await enforcer.userMessage(session);
      round = i + 5;
      await enforcer.assistantMessage(session, { stopReason: "stop", turnId: `turn-${i}` });
      deliveredAt = null;
      const start = process.hrtime.bigint();
      enforcer.idle(session);
      await enforcer.settle();
      // A skipped idle would leave nothing to time: say so rather than wait forever.
      if (deliveredAt === null) {
        throw new Error(`idle bench: round ${i} was not nudged; its decision log is in ${root}`);
      }
      if (i >= 0) times.push(Number((deliveredAt as bigint) - start) / 1e6);
    }
  } finally {
    enforcer.dispose();
    await store.close();
    rmSync(root, { recursive: true, force: true });
  }
  return times;
}
