import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOOK_SERVER_ENV, RUNTIME_DIR_ENV } from "../hosts/hook-kit/server/server-files.js";

/** This run's own cache folder (V8 code caches of the hook bundles), made on first use. */
let cacheHome: string | undefined;
function benchCacheHome(): string {
  if (cacheHome === undefined) {
    const made = mkdtempSync(join(tmpdir(), "tc-bench-cache-"));
    cacheHome = made;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  return cacheHome;
}

/**
 * This run's own folder for the resident hook server (in memory, as the server requires), made
 * on first use; the servers the run started are stopped when it ends.
 */
let runtimeDir: string | undefined;
function benchRuntimeDir(): string {
  if (runtimeDir === undefined) {
    const made = mkdtempSync("/dev/shm/tc-bench-run-");
    chmodSync(made, 0o700);
    runtimeDir = made;
    process.once("exit", () => {
      for (const name of readdirSync(made).filter((n) => n.endsWith(".pid"))) {
        try {
          process.kill(Number(readFileSync(join(made, name), "utf8").split("\n")[0]), "SIGTERM");
        } catch {}
      }
      rmSync(made, { recursive: true, force: true });
    });
  }
  return runtimeDir;
}

/**
 * The environment hook processes and their bare-`node` baseline are spawned with in the
 * benchmarks: this process's, without what makes Node's own start slower on some machines only.
 * `NODE_EXTRA_CA_CERTS` makes every Node process parse a CA bundle before it runs anything (about
 * 32 ms for a 220 KB bundle on the machine the README's figures come from): both sides would pay
 * it, which hides a hook's own cost in the ratio. The hooks' code cache goes to a folder of this
 * run's own: the user's cache holds one file per host, and another build of the package run
 * meanwhile (a second checkout) would replace it under the benchmark. So does the resident hook
 * server's folder (a server of another build never answers for this one, but its events would
 * share the machine); `inProcess` turns the server off, for the rows of a hook run in its own
 * process.
 */
export function benchNodeEnv(
  extra: NodeJS.ProcessEnv = {},
  options: { inProcess?: boolean } = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CACHE_HOME: benchCacheHome(),
    ...(options.inProcess === true
      ? { [HOOK_SERVER_ENV]: "0" }
      : { [RUNTIME_DIR_ENV]: benchRuntimeDir(), [HOOK_SERVER_ENV]: "1" }),
    ...extra,
  };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/**
 * Waits (at most two seconds) for the resident hook server a hook of this run started: the rows
 * time the hook as users run it, with the server up. False when none came up.
 */
export function awaitHookServer(): boolean {
  const folder = benchRuntimeDir();
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < 2000; waited += 10) {
    if (readdirSync(folder).some((n) => n.endsWith(".pid"))) return true;
    Atomics.wait(pause, 0, 0, 10);
  }
  return false;
}

/**
 * How long the resident server's work between events takes to end: it collects its garbage 15 ms
 * after an answer (up to about 15 ms on a slow machine).
 * A timed process started sooner would share the machine with that work, which no hook or bare
 * start in a host does (its events come seconds apart): the bench waits this long before each.
 */
export const SERVER_QUIET_MS = 50;

const quietPause = new Int32Array(new SharedArrayBuffer(4));

/** Waits {@link SERVER_QUIET_MS}, for the server's work after the last event to end. */
export function awaitServerQuiet(): void {
  Atomics.wait(quietPause, 0, 0, SERVER_QUIET_MS);
}
