import { monitorEventLoopDelay } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { createFileStore } from "../store/file/index.js";
import { watchFileStore } from "../store/file/watch.js";
import { type Dashboard, startDashboard } from "./server.js";

/**
 * The dashboard for `benchStall`, in a thread of its own: it answers the bench's commands and
 * measures its own event loop's delay between "measure" and "measured".
 */
const { root } = workerData as { root: string };
const port = parentPort!;
const store = createFileStore({ root });
let dashboard: Dashboard | null = null;
let delay: ReturnType<typeof monitorEventLoopDelay> | null = null;

port.on("message", async (command: string) => {
  switch (command) {
    case "start": {
      const runtime = new ContinuationRuntime({ store });
      dashboard = await startDashboard({
        runtime,
        storeDescription: "bench",
        follow: async (onChange, onStatus) => {
          const watch = watchFileStore(store.todoDir, onChange, { onStatus });
          await watch.ready;
          return async () => watch.close();
        },
      });
      port.postMessage({ url: dashboard.url, token: dashboard.token });
      return;
    }
    case "measure":
      delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      port.postMessage({});
      return;
    case "measured":
      delay?.disable();
      port.postMessage({ maxMs: (delay?.max ?? 0) / 1e6 });
      return;
    case "reload":
      await dashboard?.source.refresh("all");
      port.postMessage({});
      return;
    case "close":
      await dashboard?.close();
      await store.close();
      port.postMessage({});
      return;
  }
});
