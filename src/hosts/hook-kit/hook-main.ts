import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { hookBundlePath } from "./bundle-path.js";
import { BUNDLED_HOOK_HOSTS } from "./bundled-hosts.js";
import { fdWriter } from "./fd-writer.js";
import { type AskOutcome, askServer } from "./server/server-client.js";
import { HOOK_SERVER_ENV, serverFiles, serverFolder } from "./server/server-files.js";

/**
 * The command every hook host runs: `node dist/hook/main.cjs hook <host> [options]`.
 *
 * The build bundles this file into CommonJS next to the hosts' bundles: a CommonJS
 * entry spares a hook process Node's ES module loader (some ten milliseconds of
 * its start-up). When the resident hook server runs (`server/`), the event is
 * handed to it and its answer printed; else the host's bundle runs here, from
 * V8's code cache, and a server is started for the events after. A host without
 * a bundle (none, or one without hooks) goes to the full CLI, which runs the
 * unbundled hook or says which hosts there are.
 */

/** Runs `argv` (`hook <host> [options]`) here; null when the full CLI must take it. */
export async function runHookMain(folder: string, argv: readonly string[]): Promise<number | null> {
  const [command, host, ...args] = argv;
  const bundle = hookBundlePath(folder, host);
  if (command !== "hook" || host === undefined || bundle === null) return null;
  if (!BUNDLED_HOOK_HOSTS.includes(host)) return null;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined) env[name] = value;
  // `--help` is answered without reading stdin, which a caller may leave open: here, at once.
  const help = args.some((arg) => arg === "--help" || arg === "-h");
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
    fdWriter(1, () => process.stdout).write(outcome.stdout);
    fdWriter(2, () => process.stderr).write(outcome.stderr);
    return outcome.code;
  }
  // A build without this host's bundle: the full CLI runs the hook, or says what is wrong.
  if (!existsSync(bundle)) return null;
  // Imported here, not at the top: a hook the server answers never runs their modules' set-up.
  const { bundledHookProcess, loadBundle } = await import("./code-cache.js");
  const loaded = loadBundle(bundle, process.env);
  const fail = loaded.exports.writeHookFailure as (reason: unknown) => void;
  if (outcome.kind === "lost") {
    // Claimed and never answered: whether the event was recorded is unknown, so nothing is decided.
    fail(new Error(outcome.why));
    return 0;
  }
  if (env[HOOK_SERVER_ENV] === "require") {
    // For checks of the server itself: an event it did not answer is not run here either.
    if (outcome.start && files !== null)
      (await import("./server/server-start.js")).startServer(files, env);
    fail(new Error(`the hook server did not answer: ${outcome.why}`));
    return 0;
  }
  const code = await bundledHookProcess(loaded)(host, args, outcome.input?.toString("utf8"));
  if (outcome.start && files !== null)
    (await import("./server/server-start.js")).startServer(files, env);
  return code;
}

/** Runs the process: the hook when it has a bundle, else the CLI (`dist/cli/main.js`). */
export async function main(folder: string): Promise<void> {
  const code = await runHookMain(folder, process.argv.slice(2));
  if (code !== null) process.exitCode = code;
  else await import(pathToFileURL(join(dirname(folder), "cli", "main.js")).href);
}
