import { processHookIo } from "./hook-process.js";
import { loadHookRunner } from "./hooks.js";

/**
 * Runs `hook <host> [args]` in this process: the entry the package's
 * `scripts/bundle-hooks.mjs` bundles into `dist/hook/`, so a hook process
 * reads a handful of files instead of some fifty modules. Resolves null when
 * `host` has no hook, so the caller can fall back to the full CLI (which says
 * which hosts exist).
 */
export async function runHookProcess(
  host: string | undefined,
  args: readonly string[],
): Promise<number | null> {
  const run = await loadHookRunner(host);
  return run === null ? null : run(args, processHookIo());
}
