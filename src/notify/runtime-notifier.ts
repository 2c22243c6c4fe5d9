import { resolveNotify } from "../config/notify.js";
import { type NotifyConfig, validateConfig } from "../config/validate.js";
import { createNotifier, type Notifier } from "./notifier.js";

export interface RuntimeNotifierOptions extends NotifyConfig {
  /** The payload's `host` (default `runtime`): the name your program goes by. */
  host?: string;
  /** The payload's `projectDir`, when the program works in one. */
  projectDir?: string;
  /** A file to append each delivery's result to (default: none). */
  log?: string;
}

/**
 * Notifications for a program that builds its own `ContinuationRuntime` (the
 * AI SDK's `runWithTodos`, a custom loop): the same `notify` settings as the
 * config file, checked by the same validator, delivered in the background of
 * this long-lived process. Pass the result as `new ContinuationRuntime({ notify })`.
 * Settings given in code are the program's own, so no trust step applies.
 */
export function createRuntimeNotifier(options: RuntimeNotifierOptions): Notifier {
  const { host, projectDir, log, ...notify } = options;
  const checked = validateConfig({ notify }, "createRuntimeNotifier options").notify;
  if (checked === undefined) throw new Error("createRuntimeNotifier: no notify settings");
  return createNotifier({
    settings: resolveNotify(checked),
    host: host ?? "runtime",
    projectDir: projectDir ?? null,
    log: log ?? null,
    env: process.env,
    mode: "in-process",
  });
}
