import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * Where a host keeps its user-wide files: the folder its variable names, else one under the
 * user's home. The install, the doctor and the hook all find a host's folder here, so they never
 * disagree on it (a relative value is taken from the current folder, as the host takes it).
 */

type Env = Record<string, string | undefined>;

/** The user's home: `$HOME` when set, else the account's. */
export function userHome(env: Env): string {
  return env.HOME?.trim() ? (env.HOME as string) : homedir();
}

/**
 * `$<variable>` when set, else `<home>/<under...>`. `tilde`: a leading `~` in the value is the
 * home folder (the host expands it itself; a shell would have already).
 */
export function hostUserDir(
  env: Env,
  variable: string,
  under: readonly string[],
  tilde = false,
): string {
  const set = env[variable]?.trim();
  if (!set) return join(userHome(env), ...under);
  return tilde && set.startsWith("~") ? join(userHome(env), set.slice(1)) : resolve(set);
}
