import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { resolveScope } from "../core/scope/scope.js";
import { IdleEnforcer } from "../runtime/enforcer.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { MemoryStore } from "../store/memory/memory-store.js";

/** A real `gc()`, whether or not node was started with --expose-gc. */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

function settledHeap(gc: () => void): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/**
 * Heap bytes per session the idle enforcer tracks: each session has seen an
 * assistant message (agent and model remembered), the state a busy server
 * keeps for every open conversation.
 */
export async function enforcerBytesPerSession(sessions: number): Promise<number> {
  const gc = collector();
  const runtime = new ContinuationRuntime({ store: new MemoryStore() });
  const enforcer = new IdleEnforcer({
    runtime,
    scopeFor: (sessionId) => resolveScope({ kind: "session", host: "bench", sessionId }),
    deliver: async () => {},
  });
  const before = settledHeap(gc);
  for (let i = 0; i < sessions; i++) {
    await enforcer.assistantMessage(`ses_${i.toString(36).padStart(8, "0")}`, {
      agent: "build",
      model: { providerID: "local", modelID: "scripted" },
    });
  }
  const after = settledHeap(gc);
  if (enforcer.trackedSessions !== sessions) {
    throw new Error(`enforcer tracked ${enforcer.trackedSessions} of ${sessions} sessions`);
  }
  enforcer.dispose();
  return (after - before) / sessions;
}
