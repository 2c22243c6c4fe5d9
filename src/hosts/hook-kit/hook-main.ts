import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { hookBundlePath } from "./bundle-path.js";
import { BUNDLED_HOOK_HOSTS } from "./bundled-hosts.js";
import { fdWriter } from "./fd-writer.js";
import { type AskOutcome, askServer } from "./server/server-client.js";
import { serverFiles, serverFolder } from "./server/server-files.js";

/**
 * The command every hook host runs: `node dist/hook/main.cjs hook <host> [options]`.
 *
 * The build bundles this file into CommonJS next to the hosts' bundles: a CommonJS
 * entry spares a hook process Node's ES module loader (some ten milliseconds of
 * its start-up). When the resident hook server runs (`server/`), the event is
 * handed to it and its answer printed, and nothing else is loaded: this file is
 * all a hook the server answers reads and compiles, so it holds that path only.
 * Otherwise `hook-local.ts` (`dist/hook/local.cjs`) runs the host's bundle here
 * and starts a server for the events after. A host without a bundle (none, or
 * one without hooks) goes to the full CLI, which runs the unbundled hook or says
 * which hosts there are.
 */

/** Runs `argv` (`hook <host> [options]`) here; null when the full CLI must take it. */
export async function runHookMain(folder: string, argv: readonly string[]): Promise<number | null> {
  const command = argv[0];
  const host = argv[1];
  if (command !== "hook" || host === undefined || !BUNDLED_HOOK_HOSTS.includes(host)) return null;
  const bundle = hookBundlePath(folder, host);
  if (bundle === null) return null;
  const args = argv.slice(2);
  // One pass over `process.env` (each of whose reads is a call into Node): the server's key and
  // the question read this copy.
  const env: Record<string, string> = {};
  for (const name in process.env) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  // `--help` is answered without reading stdin, which a caller may leave open: here, at once.
  const help = args.includes("--help") || args.includes("-h");
  const serverDir = help ? null : serverFolder(env);
  const files = serverDir === null ? null : serverFiles(serverDir, folder, env);
  let outcome: AskOutcome = { kind: "here", why: "the hook server is off", start: false };
  if (files !== null) {
    try {
      outcome = askServer(files, host, args, { env, cwd: process.cwd(), stdinFd: 0 });
    } catch (error) {
      // Nothing was handed over (or stdin could not be read, which the hook reports itself).
      outcome = { kind: "here", why: String(error), start: false };
    }
  }
  if (outcome.kind === "answered") {
    const stdout = fdWriter(1, () => process.stdout);
    const stderr = fdWriter(2, () => process.stderr);
    stdout.write(outcome.stdout);
    stderr.write(outcome.stderr);
    // Everything is said and nothing else runs: the process ends here, without the teardown of
    // Node's heap and modules that a natural exit does (about half a millisecond of the hook).
    // Output still queued in a stream (a full pipe) waits for the natural exit.
    if (stdout.direct && stderr.direct) process.exit(outcome.code);
    return outcome.code;
  }
  // Loaded here, not at the top: a hook the server answers never reads its file.
  const { runHookHere } = await import("./hook-local.js");
  return runHookHere({ bundle, host, args, env, files, outcome });
}

/** Runs the process: the hook when it has a bundle, else the CLI (`dist/cli/main.js`). */
export async function main(folder: string): Promise<void> {
  const code = await runHookMain(folder, process.argv.slice(2));
  if (code !== null) process.exitCode = code;
  else await import(pathToFileURL(join(dirname(folder), "cli", "main.js")).href);
}
