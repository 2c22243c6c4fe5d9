import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRepo } from "./test-support/repo.js";
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
