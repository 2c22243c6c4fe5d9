import type { NotifySettings } from "../config/notify.js";
import { notifyLogPath } from "./log.js";
import { createNotifier, type Notifier } from "./notifier.js";

export interface HostNotifierOptions {
  /** The project file's `notify` (already resolved and trusted); null or absent: none. */
  settings: NotifySettings | null | undefined;
  /** `opencode`, `pi`, ...: the payload's `host`. */
  host: string;
  projectDir: string;
  /** The store folder: the notify log goes in it. */
  storeRoot: string;
  env: Record<string, string | undefined>;
}

/**
 * The notifier of a host that lives as long as its sessions (OpenCode's
 * plugin, pi's extension): a long-lived process, so delivery runs in the
 * background and its errors go to the notify log in the store folder.
 * Null when the project config asks for no notifications.
 */
export function createHostNotifier(options: HostNotifierOptions): Notifier | null {
  if (options.settings == null) return null;
  return createNotifier({
    settings: options.settings,
    host: options.host,
    projectDir: options.projectDir,
    log: notifyLogPath(options.storeRoot),
    env: options.env,
    mode: "in-process",
  });
}
