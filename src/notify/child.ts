import { deliverPayload } from "./deliver.js";
import { JOB_VARIABLE, type NotifyJob } from "./job.js";
import { appendNotifyLog } from "./log.js";

/**
 * The detached delivery process a hook hands its notifications to: it
 * delivers each payload once (never retried), logs what happened to the
 * notify log, and exits. The hook that started it has long answered its host.
 */
async function main(): Promise<void> {
  const raw = process.env[JOB_VARIABLE];
  if (raw === undefined) return;
  const job = JSON.parse(raw) as NotifyJob;
  const env = { ...process.env };
  delete env[JOB_VARIABLE];
  // A backstop: every delivery has its own limit; this process outlives none by much.
  const limit = job.settings.timeoutMs * Math.max(1, job.payloads.length) + 2_000;
  setTimeout(() => process.exit(0), limit).unref();
  for (const payload of job.payloads) {
    const results = await deliverPayload(payload, job.settings, env);
    if (job.log !== null) appendNotifyLog(job.log, payload, results);
  }
}

main().catch(() => process.exit(0));
