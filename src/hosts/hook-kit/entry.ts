import { beginEvent } from "../../core/per-event.js";
import { type HookIo, processHookIo } from "./process.js";
import { loadHookRunner } from "./runners.js";

/**
 * Runs `hook <host> [args]` in this process, from the separate modules. The
 * build's one-file bundles (`dist/hook/<host>.js`, written by
 * `scripts/bundle-hooks.mjs`) export this same function for one host each;
 * this one serves when there is no bundle. Resolves null when `host` has no
 * hook, so the caller can fall back to the full CLI (which says which hosts
 * exist).
 */
export async function runHookProcess(
  host: string | undefined,
  args: readonly string[],
  /** The event, when stdin was read already. */
  input?: string,
): Promise<number | null> {
  return runHookWith(host, args, processHookIo(input));
}

/**
 * `runHookProcess` with io of the caller's (the hook server runs events for other processes, one
 * after another on the same modules: each starts with their per-event state forgotten).
 */
export async function runHookWith(
  host: string | undefined,
  args: readonly string[],
  io: HookIo,
): Promise<number | null> {
  beginEvent();
  const run = await loadHookRunner(host);
  return run === null ? null : run(args, io);
}
