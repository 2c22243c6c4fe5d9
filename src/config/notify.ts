import { NOTIFY_EVENTS, type NotifyEvent } from "../core/notify/events.js";
import { DEFAULT_NOTIFY_TIMEOUT_MS, type NotifyConfig } from "./validate.js";

/** `notify` with its defaults filled in: what a notifier delivers to. */
export interface NotifySettings {
  command: string | string[] | null;
  webhook: string | null;
  events: NotifyEvent[];
  timeoutMs: number;
}

export function resolveNotify(config: NotifyConfig): NotifySettings {
  return {
    command: config.command ?? null,
    webhook: config.webhook ?? null,
    events: config.events ?? [...NOTIFY_EVENTS],
    timeoutMs: config.timeoutMs ?? DEFAULT_NOTIFY_TIMEOUT_MS,
  };
}

/** The line `why`, `doctor` and hooks give for a `notify` that waits for trust. */
export function notifyUntrustedNotice(why: "never" | "changed", file: string): string {
  return why === "changed"
    ? `notify not sent: ${file} changed since it was trusted; run \`todo-continuation trust\` in this project`
    : `notify not sent: ${file} is not trusted; run \`todo-continuation trust\` in this project`;
}
