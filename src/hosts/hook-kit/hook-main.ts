import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadBundle } from "./code-cache.js";
import type { runHookProcess } from "./entry.js";

/**
 * The command every hook host runs: `node dist/hook/main.cjs hook <host> [options]`.
 *
 * The build bundles this file into CommonJS next to the hosts' bundles: a CommonJS
 * entry spares a hook process Node's ES module loader (some ten milliseconds of
 * its start-up), and the host's bundle runs from V8's code cache. A host without
 * a bundle (none, or one without hooks) goes to the full CLI, which runs the
 * unbundled hook or says which hosts there are.
 */

/** Host names as they appear in bundle file names; anything else is never a file name. */
const HOST_NAME = /^[a-z][a-z0-9-]*$/;

/** Runs `argv` (`hook <host> [options]`) here; null when the full CLI must take it. */
export async function runHookMain(folder: string, argv: readonly string[]): Promise<number | null> {
  const [command, host, ...args] = argv;
  if (command !== "hook" || host === undefined || !HOST_NAME.test(host)) return null;
  const bundle = join(folder, `${host}.cjs`);
  if (!existsSync(bundle)) return null;
  const { exports, saveCache } = loadBundle(bundle, process.env);
  const code = await (exports.runHookProcess as typeof runHookProcess)(host, args);
  saveCache((exports.lastHookEvent as (() => string | null) | undefined)?.());
  return code;
}

/** Runs the process: the hook when it has a bundle, else the CLI (`dist/cli/main.js`). */
export async function main(folder: string): Promise<void> {
  const code = await runHookMain(folder, process.argv.slice(2));
  if (code !== null) process.exitCode = code;
  else await import(pathToFileURL(join(dirname(folder), "cli", "main.js")).href);
}
