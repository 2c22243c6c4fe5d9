import { existsSync } from "node:fs";
import { bundledHookProcess, loadBundle } from "./code-cache.js";
import type { AskOutcome } from "./server/server-client.js";
import { HOOK_SERVER_ENV, type ServerFiles } from "./server/server-files.js";
import { startServer } from "./server/server-start.js";

/**
 * A hook event the resident server did not answer, run in the hook's own
 * process: the host's bundle from V8's code cache, then a server started for
 * the events after. Its own file in the build (`dist/hook/local.cjs`), loaded
 * only on this path: a hook the server answers never reads it.
 */

export interface LocalRun {
  /** The host's bundle (`dist/hook/<host>.cjs`). */
  bundle: string;
  host: string;
  args: readonly string[];
  env: Record<string, string | undefined>;
  /** The server's files, or null when no server is to be used. */
  files: ServerFiles | null;
  /** Why the server did not answer (it was never asked when `files` is null). */
  outcome: Exclude<AskOutcome, { kind: "answered" }>;
}

/** The hook's exit code, or null when the full CLI must take the command (no bundle built). */
export async function runHookHere(run: LocalRun): Promise<number | null> {
  const { bundle, host, args, env, files, outcome } = run;
  // A build without this host's bundle: the full CLI runs the hook, or says what is wrong.
  if (!existsSync(bundle)) return null;
  const loaded = loadBundle(bundle, process.env);
  const fail = loaded.exports.writeHookFailure as (reason: unknown) => void;
  if (outcome.kind === "lost") {
    // Claimed and never answered: whether the event was recorded is unknown, so nothing is decided.
    fail(new Error(outcome.why));
    return 0;
  }
  if (env[HOOK_SERVER_ENV] === "require") {
    // For checks of the server itself: an event it did not answer is not run here either.
    if (outcome.start && files !== null) startServer(files, env);
    fail(new Error(`the hook server did not answer: ${outcome.why}`));
    return 0;
  }
  const code = await bundledHookProcess(loaded)(host, args, outcome.input);
  if (outcome.start && files !== null) startServer(files, env);
  return code;
}
