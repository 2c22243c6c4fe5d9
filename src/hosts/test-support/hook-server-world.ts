import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built hook entry, run as hosts run it (`npm run build` comes first). */
export const HOOK_ENTRY = fileURLToPath(new URL("../../../dist/hook/main.cjs", import.meta.url));

/**
 * A folder of its own for resident hook servers (in memory, 0700, as they require), and hooks
 * run against it. `stop()` ends every server started there and removes the folder.
 */
export interface ServerWorld {
  runtime: string;
  env: NodeJS.ProcessEnv;
  hook(
    args: string[],
    input: string,
    options?: { env?: NodeJS.ProcessEnv; cwd?: string; entry?: string },
  ): { stdout: string; stderr: string; status: number | null };
  /** The pid of the server that runs in the folder, waiting up to `ms` for one; null when none. */
  server(ms?: number): number | null;
  /** Waits up to `ms` for process `pid` to be gone; false when it still runs. */
  gone(pid: number, ms?: number): boolean;
  stop(): void;
}

const pause = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function serverWorld(extra: NodeJS.ProcessEnv = {}): ServerWorld {
  const runtime = mkdtempSync("/dev/shm/tc-hook-server-test-");
  chmodSync(runtime, 0o700);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TODO_CONTINUATION_HOOK_SERVER: "1",
    TODO_CONTINUATION_RUNTIME_DIR: runtime,
    ...extra,
  };
  delete env.NODE_EXTRA_CA_CERTS;
  const pids = () =>
    readdirSync(runtime)
      .filter((n) => n.endsWith(".pid"))
      .map((n) => Number(readFileSync(join(runtime, n), "utf8").split("\n")[0]))
      .filter((pid) => pid > 0);
  return {
    runtime,
    env,
    hook(args, input, options = {}) {
      const result = spawnSync(process.execPath, [options.entry ?? HOOK_ENTRY, "hook", ...args], {
        input,
        encoding: "utf8",
        env: { ...env, ...options.env },
        cwd: options.cwd,
        timeout: 30_000,
      });
      return { stdout: result.stdout, stderr: result.stderr, status: result.status };
    },
    server(ms = 5_000) {
      for (let waited = 0; waited <= ms; waited += 20) {
        const live = existsSync(runtime) ? pids().filter(alive) : [];
        if (live[0] !== undefined) return live[0];
        sleep(20);
      }
      return null;
    },
    gone(pid, ms = 10_000) {
      for (let waited = 0; waited <= ms; waited += 20) {
        if (!alive(pid)) return true;
        sleep(20);
      }
      return false;
    },
    stop() {
      if (existsSync(runtime)) {
        for (const pid of pids()) {
          try {
            process.kill(pid, "SIGTERM");
          } catch {}
        }
      }
      rmSync(runtime, { recursive: true, force: true });
    },
  };
}
