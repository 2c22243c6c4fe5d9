/** Percentile by nearest rank on a copy; `p` in 0..100. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error("percentile: no values");
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export interface RunStats {
  /** Median across runs of each run's p50. */
  p50: number;
  /** Median across runs of each run's p99. */
  p99: number;
  /** (max - min) / median of the per-run p50s: how much the runs disagree. */
  spread: number;
  runs: number;
}

/** Summarizes several runs of per-iteration samples. */
export function summarizeRuns(runs: readonly (readonly number[])[]): RunStats {
  if (runs.length === 0) throw new Error("summarizeRuns: no runs");
  const p50s = runs.map((r) => percentile(r, 50));
  const p99s = runs.map((r) => percentile(r, 99));
  const p50 = percentile(p50s, 50);
  const spread = p50 === 0 ? 0 : (Math.max(...p50s) - Math.min(...p50s)) / p50;
  return { p50, p99: percentile(p99s, 50), spread, runs: runs.length };
}

/**
 * Each sample against the baseline sample taken just before it (`combine`), a run's figure the
 * median of those, the result the median of the runs' figures: a slow spell of the machine moves
 * both sides of a pair alike.
 */
function paired(
  name: string,
  runs: readonly (readonly number[])[],
  baselines: readonly (readonly number[])[],
  combine: (sample: number, baseline: number) => number,
): number {
  if (runs.length === 0 || runs.length !== baselines.length) {
    throw new Error(`${name}: as many baseline runs as runs, at least one`);
  }
  const perRun = runs.map((samples, r) => {
    const base = baselines[r] as readonly number[];
    if (samples.length === 0 || samples.length !== base.length) {
      throw new Error(`${name}: run ${r} has ${samples.length} samples, ${base.length} baselines`);
    }
    return percentile(
      samples.map((ms, i) => combine(ms, base[i] as number)),
      50,
    );
  });
  return percentile(perRun, 50);
}

/** A process's time against a baseline's, as a ratio (see {@link paired}). */
export function pairedRatio(
  runs: readonly (readonly number[])[],
  baselines: readonly (readonly number[])[],
): number {
  return paired("pairedRatio", runs, baselines, (ms, base) => ms / base);
}

/**
 * What a process adds to a baseline's time, in the samples' unit (see {@link paired}): its own
 * cost, without the speed of the machine's bare start in it as a ratio has.
 */
export function pairedDifference(
  runs: readonly (readonly number[])[],
  baselines: readonly (readonly number[])[],
): number {
  return paired("pairedDifference", runs, baselines, (ms, base) => ms - base);
}
