import { verifyProject } from "./verify-project.js";

/**
 * One stop of a hook process, for the bench: a new process that, like a
 * hook, writes to a piped stdout, asks the project's shared watcher, and
 * prints what `verifyProject` cost (wall and CPU) and which path it took.
 * Arguments: the repository, the cache folder, the watchers' folder.
 */
const [cwd = "", cacheDir = "", folder = ""] = process.argv.slice(2);
const out = process.stdout;
const c0 = process.cpuUsage();
const t0 = performance.now();
const stop = await verifyProject({
  settings: { command: "true", timeoutMs: 10_000, when: "finished" },
  cwd,
  cacheDir,
  watcher: { folder },
});
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
out.write(
  `${JSON.stringify({ ms, cpuMs: (c.user + c.system) / 1000, via: stop.via, witness: stop.witness ?? null })}\n`,
);
