import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { JOB_VARIABLE, type NotifyJob } from "./job.js";
import { appendNotifyLog } from "./log.js";

/**
 * The delivery script beside this module (`dist/notify/child.js`), or, from
 * a hook bundle in `dist/hook/`, the one in `dist/notify/`.
 */
export function defaultChildScript(): string | null {
  for (const relative of ["./child.js", "../notify/child.js"]) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  return null;
}

/**
 * Hands the job to a detached process and returns at once: the hook that
 * calls this answers its host without waiting for any receiver. A process
 * that cannot be started is logged, never thrown.
 */
export function spawnDelivery(
  job: NotifyJob,
  options: { env: Record<string, string | undefined>; script?: string | null },
): boolean {
  const script = options.script === undefined ? defaultChildScript() : options.script;
  const fail = (why: string) => {
    if (job.log === null) return false;
    for (const payload of job.payloads) {
      appendNotifyLog(job.log, payload, [
        { target: "delivery", ok: false, status: null, error: why, ms: 0 },
      ]);
    }
    return false;
  };
  if (script === null) return fail("the delivery script (dist/notify/child.js) is missing");
  try {
    const child = spawn(process.execPath, [script], {
      detached: true,
      stdio: "ignore",
      env: { ...options.env, [JOB_VARIABLE]: JSON.stringify(job) },
    });
    child.on("error", (error) => fail(`could not start the delivery process: ${error.message}`));
    child.unref();
    return true;
  } catch (error) {
    return fail(`could not start the delivery process: ${(error as Error).message}`);
  }
}
