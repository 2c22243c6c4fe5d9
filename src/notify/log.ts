import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DeliveryResult } from "./deliver.js";
import type { NotifyPayload } from "./payload.js";

/** The notify log's name inside a store folder. */
export const NOTIFY_LOG = "notify.log";
/** Past this size the log moves to `notify.log.1` (replacing the older one). */
const MAX_LOG_BYTES = 512 * 1024;

export function notifyLogPath(storeRoot: string): string {
  return join(storeRoot, NOTIFY_LOG);
}

/** One JSON line per delivery. Never throws: a log that cannot be written is not a reason to fail. */
export function appendNotifyLog(path: string, payload: NotifyPayload, results: DeliveryResult[]) {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
    if (size > MAX_LOG_BYTES) renameSync(path, `${path}.1`);
    const lines = results.map((r) =>
      JSON.stringify({
        at: new Date().toISOString(),
        event: payload.event,
        scope: payload.scope.key,
        episodeId: payload.episodeId,
        ...r,
      }),
    );
    if (lines.length > 0) appendFileSync(path, `${lines.join("\n")}\n`);
  } catch {
    // Nowhere left to report to.
  }
}
