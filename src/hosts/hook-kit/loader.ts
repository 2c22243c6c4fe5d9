import { fileURLToPath } from "node:url";
import { bundledHookProcess, hookBundlePath, loadBundle } from "./code-cache.js";
import type { runHookProcess } from "./entry.js";

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
  const bundle = hookBundlePath(fileURLToPath(new URL("../../hook/", import.meta.url)), host);
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
    if (loaded !== null) return bundledHookProcess(loaded);
  }
  return (await import("./entry.js")).runHookProcess;
}
