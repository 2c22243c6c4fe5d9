/**
 * pi runs subagents as child pi processes. A child must not own a todo list
 * or continue on its own (its parent does, seed 004), so a parent marks its
 * environment and every pi it spawns (through a subagent tool or bash)
 * inherits the mark.
 */

/** Set by a parent pi to `<pid>:<scope key>`. */
export const PARENT_ENV = "TODO_CONTINUATION_PI_PARENT";
/** Explicit override: `1`/`true` = subagent, `0`/`false` = top-level session. */
export const SUBAGENT_ENV = "TODO_CONTINUATION_SUBAGENT";

type Env = Record<string, string | undefined>;

/** True when this pi process is a subagent: told so explicitly, or marked by a parent pi. */
export function isSubagent(env: Env, pid: number = process.pid): boolean {
  const explicit = env[SUBAGENT_ENV]?.trim().toLowerCase();
  if (explicit === "1" || explicit === "true") return true;
  if (explicit === "0" || explicit === "false") return false;
  const mark = env[PARENT_ENV];
  if (mark === undefined || mark === "") return false;
  // A mark this very process set (pi reloads extensions in place on /new,
  // /resume or /reload) is not a parent.
  return !mark.startsWith(`${pid}:`);
}

/** Marks the environment so pi processes spawned from here know they are subagents. */
export function markParent(env: Env, scopeKey: string, pid: number = process.pid): void {
  env[PARENT_ENV] = `${pid}:${scopeKey}`;
}
