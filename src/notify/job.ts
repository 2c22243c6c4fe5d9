import type { NotifySettings } from "../config/notify.js";
import type { NotifyPayload } from "./payload.js";

/** The variable a delivery process reads its work from (an env var, not argv: a webhook URL may hold a secret). */
export const JOB_VARIABLE = "TODO_CONTINUATION_NOTIFY_JOB";

/** What a detached delivery process is handed: the payloads, where to send them, where to log. */
export interface NotifyJob {
  payloads: NotifyPayload[];
  settings: NotifySettings;
  /** The notify log; null: do not log. */
  log: string | null;
}
