import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeRepo } from "./test-support/repo.js";
import { stopWatchers, waitForWatcher } from "./test-support/watchers.js";
import { verifyProject } from "./verify-project.js";
import { setWatching } from "./watch.js";

export interface CachedStopSamples {
  /** Wall-clock time of each stop, ms. */
  samples: number[];
  /** CPU time (user + system) of this process per stop, ms, averaged over the samples. */
  cpuMs: number;
}

/**
 * The cost of a stop on an unchanged, already verified tree beyond the
 * decision itself: what `verifyProject` adds on a git repository of `files`
 * files. `watch`: a long-lived process, where the watch it keeps on the
 * tree's folders answers (Linux); `stats`: the witness alone, a stat of every
 * file, as in a hook's new process. Each sample must take the path asked
 * for; anything else (a run, a git call) fails the bench instead of being
 * timed.
 */
export async function benchCachedStop(
  files: number,
  iterations: number,
  path: "watch" | "stats" = "stats",
): Promise<CachedStopSamples> {
  const repo = makeRepo(files, "tc-bench-verify-");
  const cacheDir = mkdtempSync(join(tmpdir(), "tc-bench-verify-cache-"));
  setWatching(path === "watch");
  try {
    const settings = { command: "true", timeoutMs: 10_000, when: "finished" as const };
    const first = await verifyProject({ settings, cwd: repo, cacheDir });
    if (!first.ran || first.result.status !== "passed") {
      throw new Error(
        `bench: the first check did not run and pass (${first.via}, ${first.result.status})`,
      );
    }
    const samples: number[] = [];
    let cpu = 0;
    for (let i = 0; i < iterations + 3; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const out = await verifyProject({ settings, cwd: repo, cacheDir });
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      // The first two stops after the run stat the files (the second starts the watch).
      const expected = i <= 1 ? "stats" : path;
      if (out.via !== "witness" || out.witness !== expected) {
        throw new Error(
          `bench: an unchanged tree took the ${out.via}/${out.witness ?? "-"} path, not ${expected}`,
        );
      }
      if (i >= 3) {
        samples.push(ms);
        cpu += (c.user + c.system) / 1000;
      }
    }
    return { samples, cpuMs: cpu / iterations };
  } finally {
    setWatching(true);
    rmSync(repo, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

export interface HookStopSamples extends CachedStopSamples {
  /** Stops whose watcher did not answer in time (they took the stat witness). */
  fallbacks: number;
}

/**
 * The same stop in a hook: a new process per stop, with the project's shared
 * watcher running (started by the first verify, as a hook starts it). Each
 * sample is the time `verifyProject` took in that new process, the cost
 * beyond the decision; module loading is the hook's start, measured by the
 * `hook.*` rows. A stop the watcher did not answer in time takes the stat
 * witness: it is counted (and timed) as a fallback, never as a failure. Any
 * other path (a run, git) fails the bench.
 */
export async function benchHookStop(files: number, stops: number): Promise<HookStopSamples> {
  const repo = makeRepo(files, "tc-bench-verify-");
  const cacheDir = mkdtempSync(join(tmpdir(), "tc-bench-verify-cache-"));
  const folder = mkdtempSync(join(tmpdir(), "tc-bench-watchers-"));
  const child = join(dirname(fileURLToPath(import.meta.url)), "bench-hook-child.js");
  const stop = () => {
    const run = spawnSync(process.execPath, [child, repo, cacheDir, folder], { encoding: "utf8" });
    if (run.status !== 0) throw new Error(`bench: the hook stop failed: ${run.stderr}`);
    return JSON.parse(run.stdout) as { ms: number; cpuMs: number; via: string; witness: string };
  };
  try {
    const settings = { command: "true", timeoutMs: 10_000, when: "finished" as const };
    const first = await verifyProject({ settings, cwd: repo, cacheDir, watcher: { folder } });
    if (!first.ran) throw new Error(`bench: the first check did not run (${first.via})`);
    await waitForWatcher(folder);
    // The first stop with a watcher stamps its watch; the ones after ask it.
    stop();
    const samples: number[] = [];
    let cpu = 0;
    let fallbacks = 0;
    for (let i = 0; i < stops; i++) {
      const out = stop();
      if (out.via !== "witness")
        throw new Error(`bench: an unchanged tree took the ${out.via} path`);
      if (out.witness !== "watcher") fallbacks += 1;
      samples.push(out.ms);
      cpu += out.cpuMs;
    }
    return { samples, cpuMs: cpu / stops, fallbacks };
  } finally {
    stopWatchers(folder);
    rmSync(repo, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  }
}
