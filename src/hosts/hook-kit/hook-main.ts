import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { hookBundlePath } from "./bundle-path.js";
import { BUNDLED_HOOK_HOSTS } from "./bundled-hosts.js";
import { fdBlocks } from "./fd-blocks.js";
import { writeWhole } from "./fd-writer.js";
import type { LocalRun } from "./hook-local.js";
import { type AskOutcome, askServer } from "./server/server-client.js";
import { serverFiles, serverFolder } from "./server/server-files.js";

/**
 * The command every hook host runs: `node dist/hook/main.cjs hook <host> [options]`.
 *
 * The build bundles this file into CommonJS next to the hosts' bundles: a CommonJS
 * entry spares a hook process Node's ES module loader (some ten milliseconds of
 * its start-up). When the resident hook server runs (`server/`), the event is
 * handed to it and its answer printed, and nothing else is loaded: this file is
 * all a hook the server answers reads and compiles, so it holds that path only,
 * synchronously (a new process's first async function costs it 0.2 ms).
 * Otherwise `hook-local.ts` (`dist/hook/local.cjs`) runs the host's bundle here
 * and starts a server for the events after. A host without a bundle (none, or
 * one without hooks) goes to the full CLI, which runs the unbundled hook or says
 * which hosts there are.
 */

/** What `askHere` decided: the exit code of an answered event, or what to run in this process. */
type Asked =
  | { kind: "cli" }
  | { kind: "answered"; code: number }
  | { kind: "local"; run: LocalRun };

/** Hands `argv` (`hook <host> [options]`) to the server and prints its answer, when it can. */
function askHere(folder: string, argv: readonly string[]): Asked {
  const command = argv[0];
  const host = argv[1];
  if (command !== "hook" || host === undefined || !BUNDLED_HOOK_HOSTS.includes(host)) {
    return { kind: "cli" };
  }
  const bundle = hookBundlePath(folder, host);
  if (bundle === null) return { kind: "cli" };
  const args = argv.slice(2);
  // `process.env` itself, not a copy: each read of it is a call into Node, and the question
  // hands it over whole (`JSON.stringify` reads every variable once).
  const env = process.env;
  // `--help` is answered without reading stdin, which a caller may leave open: here, at once.
  const help = args.includes("--help") || args.includes("-h");
  const serverDir = help ? null : serverFolder(env);
  const files = serverDir === null ? null : serverFiles(serverDir, folder, env);
  let outcome: AskOutcome = { kind: "here", why: "the hook server is off", start: false };
  /** Whether stdout and stderr block, read while the server works (two reads of `/proc`). */
  const blocking: (boolean | undefined)[] = [];
  const whileWaiting = () => {
    blocking[1] = fdBlocks(1);
    blocking[2] = fdBlocks(2);
  };
  if (files !== null) {
    try {
      outcome = askServer(files, host, args, { env, cwd: process.cwd(), stdinFd: 0, whileWaiting });
    } catch (error) {
      // Nothing was handed over (or stdin could not be read, which the hook reports itself).
      outcome = { kind: "here", why: String(error), start: false };
    }
  }
  if (outcome.kind !== "answered") {
    return { kind: "local", run: { bundle, host, args, env, files, outcome } };
  }
  const blocks = (fd: number) => blocking[fd] ?? fdBlocks(fd);
  const stdoutDone = writeWhole(1, outcome.stdout, () => process.stdout, blocks);
  const stderrDone = writeWhole(2, outcome.stderr, () => process.stderr, blocks);
  // Everything is said and nothing else runs: the process ends here, without the teardown of
  // Node's heap and modules that a natural exit does (about half a millisecond of the hook).
  // Output still queued in a stream (a full pipe) waits for the natural exit.
  if (stdoutDone && stderrDone) process.exit(outcome.code);
  return { kind: "answered", code: outcome.code };
}

/** Runs the process: the hook when it has a bundle, else the CLI (`dist/cli/main.js`). */
export function main(folder: string): void {
  const asked = askHere(folder, process.argv.slice(2));
  if (asked.kind === "answered") {
    process.exitCode = asked.code;
    return;
  }
  void (async () => {
    if (asked.kind === "local") {
      const { runHookHere } = await import("./hook-local.js");
      const code = await runHookHere(asked.run);
      if (code !== null) {
        process.exitCode = code;
        return;
      }
    }
    await import(pathToFileURL(join(dirname(folder), "cli", "main.js")).href);
  })();
}
