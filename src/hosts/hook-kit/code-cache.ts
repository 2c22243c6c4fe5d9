import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

export { hookBundlePath } from "./bundle-path.js";

import type { runHookProcess } from "./entry.js";
import { privateCacheDir, readPrivateFile, writePrivateFile } from "./private-cache.js";

/**
 * Runs a hook bundle (`dist/hook/<host>.cjs`) from V8's code cache.
 *
 * A hook host starts a new process for every agent event, so a hook pays for
 * compiling its bundle every time: Node 20 keeps no compile cache of its own.
 * Compiling through `vm.Script` with the bytes V8 produced after an earlier
 * run (`cachedData`) skips the parse and the lazy compiles of every function
 * that earlier run used. The cache is the user's own (`$XDG_CACHE_HOME` or
 * `~/.cache`, a 0700 folder), named by the bundle's build id, the Node version
 * and the architecture; V8 checks its own version and flags on top and
 * rejects what does not fit, and a rejected or missing cache is written anew.
 * Any trouble with the cache only costs the compile it would have saved.
 */

// `node:fs` and `node:vm` through require: an ESM import of `node:fs` builds its
// whole namespace, which loads the stream modules a hook never uses.
const require = createRequire(import.meta.url);
const fs = require("node:fs") as typeof import("node:fs");
const vm = require("node:vm") as typeof import("node:vm");

/** `TODO_CONTINUATION_CODE_CACHE=0` turns the cache off. */
export const CODE_CACHE_ENV = "TODO_CONTINUATION_CODE_CACHE";

/** The first line of every bundle the build writes: `// todo-continuation bundle <id>`. */
const BUILD_LINE = /^\/\/ todo-continuation bundle ([0-9a-f]{8,64})\n/;

export interface LoadedBundle {
  exports: Record<string, unknown>;
  /** Whether V8 took the cached code (else the bundle was compiled from its source). */
  fromCache: boolean;
  /**
   * Writes the cache when the bundle ran without one, or answered `event` (the name of what it
   * handled) for the first time since the cache was made: each kind of event runs functions the
   * others do not, and a cache made by one compiles the rest again at every start. Call once the
   * work is done.
   */
  saveCache(event?: string | null): void;
}

/** The folder the cache goes in, or null when there is none to use. */
export function codeCacheDir(env: Record<string, string | undefined>): string | null {
  return env[CODE_CACHE_ENV] === "0" ? null : privateCacheDir(env, "code-cache");
}

/** The cache file of `bundle` with build id `id`: stale ones share its prefix. */
function cacheName(bundle: string, id: string): { prefix: string; name: string } {
  const prefix = `${basename(bundle, ".cjs")}-`;
  return { prefix, name: `${prefix}${id}-${process.version}-${process.arch}.bin` };
}

/** How a cache file starts: these bytes, then its header's length (4 bytes), the header (JSON). */
const MAGIC = Buffer.from("tcc1");

/** What a cache file says of itself: the events whose runs compiled what it holds. */
interface CacheHeader {
  events: string[];
}

/**
 * A cache file: `MAGIC`, the header, then V8's data twice. V8 checks no checksum of its own in a
 * release build, and a damaged cache can crash the process; two equal halves rule out a torn or
 * decayed file for a memcmp.
 */
function encodeCache(header: CacheHeader, data: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  return Buffer.concat([MAGIC, length, json, data, data]);
}

/** The cache file's header and data, or undefined when it is not a whole, sound one. */
function readCache(
  folder: string,
  name: string,
): { header: CacheHeader; data: Buffer } | undefined {
  const bytes = readPrivateFile(folder, name);
  if (bytes === undefined || bytes.length < 8 || !bytes.subarray(0, 4).equals(MAGIC)) return;
  const end = 8 + bytes.readUInt32LE(4);
  if (end > bytes.length) return undefined;
  let header: CacheHeader;
  try {
    const parsed = JSON.parse(bytes.subarray(8, end).toString("utf8")) as { events?: unknown };
    if (!Array.isArray(parsed.events) || !parsed.events.every((e) => typeof e === "string")) return;
    header = { events: parsed.events as string[] };
  } catch {
    return undefined;
  }
  const half = (bytes.length - end) / 2;
  if (half === 0 || !Number.isInteger(half)) return undefined;
  const data = bytes.subarray(end, end + half);
  return data.equals(bytes.subarray(end + half)) ? { header, data } : undefined;
}

/** Loads the CommonJS bundle at `file`, compiled from the code cache when there is a usable one. */
export function loadBundle(file: string, env: Record<string, string | undefined>): LoadedBundle {
  const source = fs.readFileSync(file, "utf8");
  const id = BUILD_LINE.exec(source)?.[1];
  const folder = id === undefined ? null : codeCacheDir(env);
  const { prefix, name } = cacheName(file, id ?? "");
  const cached = folder === null ? undefined : readCache(folder, name);
  const cachedData = cached?.data;
  const { script, instantiate } = compileBundle(file, source, cachedData);
  const module = { exports: instantiate() };
  // Node says `cachedDataRejected: false` only when V8 took the bytes it was given.
  const fromCache = cachedData !== undefined && script.cachedDataRejected === false;
  const events = fromCache ? (cached?.header.events ?? []) : [];
  let saved = folder === null;
  return {
    exports: module.exports,
    fromCache,
    saveCache(event) {
      const known = event === undefined || event === null || events.includes(event);
      if (saved || (fromCache && known)) return;
      saved = true;
      try {
        const seen = known ? events : [...events, event].slice(-32);
        writePrivateFile(
          folder as string,
          name,
          encodeCache({ events: seen }, script.createCachedData()),
          (other) => other.startsWith(prefix) && other.endsWith(".bin"),
        );
      } catch {
        // A cache that cannot be written costs the next hook a compile, nothing else.
      }
    },
  };
}

/** A bundle compiled once, whose modules can be run afresh any number of times. */
export interface CompiledBundle {
  script: import("node:vm").Script;
  /** Runs the bundle's top level anew: a new set of its modules, with none of the last run's state. */
  instantiate(): Record<string, unknown>;
}

/**
 * Compiles the CommonJS bundle `file` (its text `source`), from `cachedData`
 * when given. The bundle's `__import(...)` calls (the build rewrites its
 * `import()` calls to those: code compiled by `vm` cannot run `import()`) are
 * served here, a relative specifier against the bundle's own folder.
 */
export function compileBundle(file: string, source: string, cachedData?: Buffer): CompiledBundle {
  // On the wrapper's first line, as Node does, so stack traces keep their line numbers.
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname, __import) {${source}\n})`,
    { filename: file, ...(cachedData !== undefined ? { cachedData } : {}) },
  );
  const dir = dirname(file);
  const requireHere = createRequire(file);
  const importEsm = (specifier: string) =>
    import(specifier.startsWith(".") ? pathToFileURL(join(dir, specifier)).href : specifier);
  // One wrapper function for every instance: each call is a new scope (a new set of the bundle's
  // module state), while the closures it makes share their type feedback and optimised code with
  // the earlier calls' (V8 keeps those per creation site of the wrapper). A wrapper made anew for
  // each instance would run every event's code cold, as a new process does.
  let wrapper: ((...args: unknown[]) => void) | undefined;
  return {
    script,
    instantiate() {
      const module = { exports: {} as Record<string, unknown> };
      wrapper ??= script.runInThisContext() as (...args: unknown[]) => void;
      wrapper(module.exports, requireHere, module, file, dir, importEsm);
      return module.exports;
    },
  };
}

/**
 * A loaded host bundle as a hook process: it runs the hook, then keeps the code cache up to date
 * with the event the hook answered.
 */
export function bundledHookProcess(loaded: LoadedBundle): typeof runHookProcess {
  const run = loaded.exports.runHookProcess as typeof runHookProcess;
  const lastEvent = loaded.exports.lastHookEvent as (() => string | null) | undefined;
  return async (host, args, input) => {
    const code = await run(host, args, input);
    loaded.saveCache(lastEvent?.());
    return code;
  };
}
