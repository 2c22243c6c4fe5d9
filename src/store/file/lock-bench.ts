import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveScope } from "../../core/scope/scope.js";

/** The one scope every process of the benchmark writes. */
export const HOT_SCOPE = resolveScope({ kind: "cron", jobId: "hot" })!;

export interface LockBenchOptions {
  /** Processes hammering the one scope at once. */
  processes: number;
  /** How long each process keeps running transactions (ms). */
  durationMs: number;
  /** Folder to work in (a fresh sub-folder is created and removed). */
  dir: string;
  /** The compiled worker to run; default the one beside this module. */
  workerFile?: string;
}

export interface LockBenchResult {
  /** Every transaction's wait for the lock (ms), all processes together. */
  waits: number[];
  /** Transactions each process completed. */
  perProcess: number[];
}

const DEFAULT_WORKER = fileURLToPath(new URL("./lock-bench-worker.js", import.meta.url));

function runWorker(file: string, root: string, durationMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [file, root, String(durationMs)],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`lock bench worker failed: ${stderr || error.message}`));
          return;
        }
        resolve(JSON.parse(stdout) as number[]);
      },
    );
  });
}

/**
 * Starts `processes` processes that each run back-to-back transactions on one
 * scope of one file store for `durationMs`, and collects how long every
 * transaction waited for the scope's lock. A fair lock keeps the tail short:
 * no process waits long behind others looping.
 */
export async function benchLockWait(options: LockBenchOptions): Promise<LockBenchResult> {
  const { processes, durationMs } = options;
  if (!Number.isSafeInteger(processes) || processes < 1) {
    throw new RangeError(`benchLockWait: processes must be a positive integer, got ${processes}`);
  }
  mkdirSync(options.dir, { recursive: true });
  const work = mkdtempSync(join(options.dir, "lock-bench-"));
  try {
    const file = options.workerFile ?? DEFAULT_WORKER;
    const runs = await Promise.all(
      Array.from({ length: processes }, () => runWorker(file, work, durationMs)),
    );
    return { waits: runs.flat(), perProcess: runs.map((waits) => waits.length) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
