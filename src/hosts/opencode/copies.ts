/**
 * The copies of our plugin loaded in this process. OpenCode (and Kilo) load every plugin file of
 * the user's plugin folder and of the project's, so ours installed in both is two plugins, each
 * told of every event: each would decide every idle (measured on OpenCode 1.18.33: `inject` then
 * `skip:turn-not-safe` at each idle, every decision logged twice). One copy per project folder
 * acts: the project's (its options are the more specific), else the first loaded. The registry
 * lives on `globalThis` under a shared symbol, so two installs naming different copies of the
 * package still find each other.
 */

/** Which plugin folder a copy was installed in; unknown for a plugin file of an older install. */
export type CopyTarget = "user" | "project" | undefined;

interface Copy {
  target: CopyTarget;
}

const REGISTRY = Symbol.for("todo-continuation.plugin-copies");

function registry(): Map<string, Copy[]> {
  const global = globalThis as { [REGISTRY]?: Map<string, Copy[]> };
  global[REGISTRY] ??= new Map();
  return global[REGISTRY];
}

export interface PluginCopy {
  /** Whether this copy is the one that acts for its project (asked at every event). */
  acts(): boolean;
  /** How many copies of ours this process has loaded for the project, this one included. */
  count(): number;
  /** Takes this copy out (its plugin was disposed): another copy acts from then on. */
  leave(): void;
}

/** Registers a copy of `host`'s plugin for the project folder `directory`. */
export function joinCopies(host: string, directory: string, target: CopyTarget): PluginCopy {
  const key = `${host}\0${directory}`;
  const me: Copy = { target };
  const copies = registry().get(key) ?? [];
  copies.push(me);
  registry().set(key, copies);
  const current = () => registry().get(key) ?? [];
  return {
    acts() {
      const all = current();
      return (all.find((c) => c.target === "project") ?? all[0]) === me;
    },
    count: () => current().length,
    leave() {
      const rest = current().filter((c) => c !== me);
      if (rest.length === 0) registry().delete(key);
      else registry().set(key, rest);
    },
  };
}
