import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
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
  /** Writes the cache when the bundle ran without one; call once the work is done. */
  saveCache(): void;
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

/**
 * The cached bytes, when the file holds them twice: V8 checks no checksum of its own in a release
 * build, and a damaged cache can crash the process; two equal halves rule out a torn or decayed
 * file for a memcmp.
 */
function readCache(folder: string, name: string): Buffer | undefined {
  const bytes = readPrivateFile(folder, name);
  if (bytes === undefined) return undefined;
  const half = bytes.length / 2;
  if (half === 0 || !Number.isInteger(half)) return undefined;
  const cache = bytes.subarray(0, half);
  return cache.equals(bytes.subarray(half)) ? cache : undefined;
}

/**
 * Loads the CommonJS bundle at `file`, compiled from the code cache when there
 * is a usable one. The bundle's `__import(...)` calls (the build rewrites its
 * `import()` calls to those: code compiled by `vm` cannot run `import()`) are
 * served here, a relative specifier against the bundle's own folder.
 */
export function loadBundle(file: string, env: Record<string, string | undefined>): LoadedBundle {
  const source = fs.readFileSync(file, "utf8");
  const id = BUILD_LINE.exec(source)?.[1];
  const folder = id === undefined ? null : codeCacheDir(env);
  const { prefix, name } = cacheName(file, id ?? "");
  const cachedData = folder === null ? undefined : readCache(folder, name);
  // On the wrapper's first line, as Node does, so stack traces keep their line numbers.
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname, __import) {${source}\n})`,
    { filename: file, ...(cachedData !== undefined ? { cachedData } : {}) },
  );
  const module = { exports: {} as Record<string, unknown> };
  const dir = dirname(file);
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  const importEsm = (specifier: string) =>
    import(specifier.startsWith(".") ? pathToFileURL(join(dir, specifier)).href : specifier);
  run(module.exports, createRequire(file), module, file, dir, importEsm);
  // Node says `cachedDataRejected: false` only when V8 took the bytes it was given.
  const fromCache = cachedData !== undefined && script.cachedDataRejected === false;
  let stale = folder !== null && !fromCache;
  return {
    exports: module.exports,
    fromCache,
    saveCache() {
      if (!stale || folder === null) return;
      stale = false;
      try {
        const data = script.createCachedData();
        writePrivateFile(
          folder,
          name,
          Buffer.concat([data, data]),
          (other) => other.startsWith(prefix) && other.endsWith(".bin"),
        );
      } catch {
        // A cache that cannot be written costs the next hook a compile, nothing else.
      }
    },
  };
}
