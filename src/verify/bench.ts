import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRepo } from "./test-support/repo.js";
import { verifyProject } from "./verify-project.js";

/**
 * The cost of a stop on an unchanged, already verified tree beyond the
 * decision itself: what `verifyProject` adds (cache read, witness stats) on a
 * git repository of `files` files. Each sample must take the witness path;
 * anything else (a run, a git call) fails the bench instead of being timed.
 */
export async function benchCachedStop(files: number, iterations: number): Promise<number[]> {
  const repo = makeRepo(files, "tc-bench-verify-");
  const cacheDir = mkdtempSync(join(tmpdir(), "tc-bench-verify-cache-"));
  try {
    const settings = { command: "true", timeoutMs: 10_000, when: "finished" as const };
    const first = await verifyProject({ settings, cwd: repo, cacheDir });
    if (!first.ran || first.result.status !== "passed") {
      throw new Error(
        `bench: the first check did not run and pass (${first.via}, ${first.result.status})`,
      );
    }
    const samples: number[] = [];
    for (let i = 0; i < iterations + 3; i++) {
      const t0 = performance.now();
      const out = await verifyProject({ settings, cwd: repo, cacheDir });
      const ms = performance.now() - t0;
      if (out.via !== "witness")
        throw new Error(`bench: an unchanged tree took the ${out.via} path`);
      if (i >= 3) samples.push(ms);
    }
    return samples;
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
