import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** Environment variable that moves the store root (for every process that reads it). */
export const STORE_ROOT_ENV = "TODO_CONTINUATION_DIR";

/** Name of the product's folder under the XDG state directory. */
const APP_FOLDER = "todo-continuation";

export interface StoreRootEnvironment {
  env?: Record<string, string | undefined>;
  home?: string;
  cwd?: string;
}

function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}

/**
 * Where the file store keeps its data: the explicit option, else
 * `$TODO_CONTINUATION_DIR`, else `${XDG_STATE_HOME:-~/.local/state}/todo-continuation`.
 * Empty values count as unset, a leading `~/` is expanded (config files do not
 * go through a shell), relative paths resolve against the working directory,
 * and a relative `XDG_STATE_HOME` is ignored as the XDG spec requires.
 */
export function resolveStoreRoot(option?: string, environment: StoreRootEnvironment = {}): string {
  const env = environment.env ?? process.env;
  const home = environment.home ?? homedir();
  const cwd = environment.cwd ?? process.cwd();
  const chosen = option?.trim() ? option : env[STORE_ROOT_ENV]?.trim() ? env[STORE_ROOT_ENV] : "";
  if (chosen) return resolve(cwd, expandHome(chosen, home));
  const xdg = env.XDG_STATE_HOME;
  const stateHome = xdg && isAbsolute(xdg) ? xdg : join(home, ".local", "state");
  return join(stateHome, APP_FOLDER);
}
