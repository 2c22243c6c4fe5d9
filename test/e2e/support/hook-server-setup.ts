import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * The end-to-end runs use the resident hook server as users get it (on by default), in a folder
 * of this run's own, so no server of another run or checkout answers for this one. The servers
 * the run started are stopped at its end, and the folder removed.
 */
export default function setup(): () => void {
  const runtime = mkdtempSync("/dev/shm/tc-e2e-hook-server-");
  chmodSync(runtime, 0o700);
  process.env.TODO_CONTINUATION_RUNTIME_DIR = runtime;
  return () => {
    for (const name of readdirSync(runtime).filter((n) => n.endsWith(".pid"))) {
      try {
        process.kill(Number(readFileSync(join(runtime, name), "utf8").split("\n")[0]), "SIGTERM");
      } catch {}
    }
    rmSync(runtime, { recursive: true, force: true });
  };
}

/**
 * The variable that points a host's hooks at this run's hook server folder: for the hosts' own
 * environments, which the suites build from nothing but what each host needs.
 */
export function hookServerEnv(): Record<string, string> {
  const runtime = process.env.TODO_CONTINUATION_RUNTIME_DIR;
  return runtime === undefined ? {} : { TODO_CONTINUATION_RUNTIME_DIR: runtime };
}
