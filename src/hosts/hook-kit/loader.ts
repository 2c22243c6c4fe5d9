import { fileURLToPath } from "node:url";
import { loadBundle } from "./code-cache.js";
import type { runHookProcess } from "./entry.js";

/** Host names as they appear in bundle file names; anything else is never a file name. */
const HOST_NAME = /^[a-z][a-z0-9-]*$/;

function bundleOf(host: string | undefined): string | null {
  return host !== undefined && HOST_NAME.test(host)
    ? fileURLToPath(new URL(`../../hook/${host}.cjs`, import.meta.url))
    : null;
}

/**
 * The hook process for `host`: the one-file bundle the build writes to
 * `dist/hook/<host>.cjs` (a hook runs once per agent event, and loading fifty
 * separate modules was most of its start-up), run from V8's code cache
 * (`code-cache.ts`), or the unbundled entry when there is none (running from
 * the TypeScript sources, or a host without hooks, which the unbundled entry
 * turns down). A bundle that exists but fails to load is an error, never
 * silently replaced.
 */
export async function loadHookProcess(host: string | undefined): Promise<typeof runHookProcess> {
  const bundle = bundleOf(host);
  if (bundle !== null) {
    let loaded: ReturnType<typeof loadBundle> | null = null;
    try {
      loaded = loadBundle(bundle, process.env);
    } catch (error) {
      if (
        (error as NodeJS.ErrnoException).code !== "ENOENT" ||
        (error as { path?: string }).path !== bundle
      )
        throw error;
    }
    if (loaded !== null) {
      const { exports, saveCache } = loaded;
      const run = exports.runHookProcess as typeof runHookProcess;
      return async (name, args) => {
        const code = await run(name, args);
        saveCache((exports.lastHookEvent as (() => string | null) | undefined)?.());
        return code;
      };
    }
  }
  return (await import("./entry.js")).runHookProcess;
}
