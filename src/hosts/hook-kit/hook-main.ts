import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { bundledHookProcess, hookBundlePath, loadBundle } from "./code-cache.js";

/**
 * The command every hook host runs: `node dist/hook/main.cjs hook <host> [options]`.
 *
 * The build bundles this file into CommonJS next to the hosts' bundles: a CommonJS
 * entry spares a hook process Node's ES module loader (some ten milliseconds of
 * its start-up), and the host's bundle runs from V8's code cache. A host without
 * a bundle (none, or one without hooks) goes to the full CLI, which runs the
 * unbundled hook or says which hosts there are.
 */

/** Runs `argv` (`hook <host> [options]`) here; null when the full CLI must take it. */
export async function runHookMain(folder: string, argv: readonly string[]): Promise<number | null> {
  const [command, host, ...args] = argv;
  const bundle = hookBundlePath(folder, host);
  if (command !== "hook" || host === undefined || bundle === null || !existsSync(bundle)) {
    return null;
  }
  return bundledHookProcess(loadBundle(bundle, process.env))(host, args);
}

/** Runs the process: the hook when it has a bundle, else the CLI (`dist/cli/main.js`). */
export async function main(folder: string): Promise<void> {
  const code = await runHookMain(folder, process.argv.slice(2));
  if (code !== null) process.exitCode = code;
  else await import(pathToFileURL(join(dirname(folder), "cli", "main.js")).href);
}
