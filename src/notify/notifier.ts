import type { NotifySettings } from "../config/notify.js";
import { packageVersion } from "../config/package-version.js";
import type { Notification } from "../core/notify/events.js";
import { describeScope } from "../core/scope/index.js";
import type { Scope } from "../core/types.js";
import { type DeliveryResult, deliverPayload } from "./deliver.js";
import { appendNotifyLog } from "./log.js";
import { buildPayload, type NotifyPayload } from "./payload.js";
import { spawnDelivery } from "./spawn.js";

/**
 * What the runtime is given to notify with (`RuntimeOptions.notify`): the
 * events wanted, and a `send` it calls after the decision and its sent-marks
 * are persisted. `send` returns at once and never throws.
 */
export interface Notifier {
  events: NotifySettings["events"];
  send(scope: Scope, notifications: Notification[]): void;
  /** Resolves when every in-process delivery started so far has finished (tests, shutdown). */
  settled(): Promise<void>;
}

export interface NotifierOptions {
  settings: NotifySettings;
  /** `claude-code`, `opencode`, ...: the payload's `host`. */
  host: string;
  projectDir: string | null;
  /** The notify log (see `notifyLogPath`); null: no log. */
  log: string | null;
  env: Record<string, string | undefined>;
  /**
   * `detached`: a process per hook event hands delivery to a detached child
   * and exits. `in-process`: a long-lived host delivers in the background.
   */
  mode: "detached" | "in-process";
  /** The delivery script (tests run the sources); default `dist/notify/child.js`. */
  childScript?: string | null;
  /** Told of every in-process delivery's results (a host's own log). */
  onResult?: (payload: NotifyPayload, results: DeliveryResult[]) => void;
}

export function createNotifier(options: NotifierOptions): Notifier {
  const pending = new Set<Promise<void>>();
  const version = packageVersion();
  return {
    events: options.settings.events,
    send(scope, notifications) {
      try {
        const context = {
          scope: { key: scope.key, label: describeScope(scope) },
          host: options.host,
          projectDir: options.projectDir,
          version,
        };
        const payloads = notifications.map((n) => buildPayload(n, context));
        if (payloads.length === 0) return;
        if (options.mode === "detached") {
          spawnDelivery(
            { payloads, settings: options.settings, log: options.log },
            {
              env: options.env,
              ...(options.childScript !== undefined ? { script: options.childScript } : {}),
            },
          );
          return;
        }
        const work = (async () => {
          for (const payload of payloads) {
            const results = await deliverPayload(payload, options.settings, options.env);
            if (options.log !== null) appendNotifyLog(options.log, payload, results);
            options.onResult?.(payload, results);
          }
        })().catch(() => undefined);
        pending.add(work);
        void work.finally(() => pending.delete(work));
      } catch {
        // Notifying must never fail the decision it reports.
      }
    },
    async settled() {
      await Promise.all([...pending]);
    },
  };
}
