import { BEHAVIOURS, type Behaviour } from "./behaviours.js";
import { POLICY_NAMES, type PolicyName, simulateRun } from "./run.js";

export interface SimRow {
  behaviour: string;
  policy: PolicyName;
  /** Completed / completable items over all runs (1 when nothing was completable). */
  completion: number;
  /** Mean per run. */
  nudges: number;
  /** Mean per run: nudges after which the agent completed nothing new. */
  wastedNudges: number;
  /** Worst run: most consecutive wasted nudges. */
  longestUnproductiveRun: number;
  /** Mean per run, estimated tokens of the nudges sent. */
  nudgeTokens: number;
  /** Total over all runs. */
  violations: number;
  /** Items the agent could complete over all runs (0 for agents that never progress). */
  completable: number;
  /** Worst run's wasted nudges (the per-episode figure the targets speak of). */
  maxWastedNudges: number;
  violationKinds: string[];
  /** Runs in which the agent marked items done without doing them. */
  falseFinishes: number;
  /** ...of which the run ended with the list finished and the work not done. */
  missedFalseFinishes: number;
}

export interface SimOptions {
  seed: number;
  runs: number;
  behaviours?: readonly Behaviour[];
  policies?: readonly PolicyName[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Every behaviour against every policy, `runs` seeded runs per pair. Deterministic. */
export async function simulate(options: SimOptions): Promise<SimRow[]> {
  const rows: SimRow[] = [];
  const behaviours = options.behaviours ?? BEHAVIOURS;
  for (const [b, behaviour] of behaviours.entries()) {
    for (const policy of options.policies ?? POLICY_NAMES) {
      let completed = 0;
      let completable = 0;
      let nudges = 0;
      let wasted = 0;
      let maxWasted = 0;
      let longest = 0;
      let tokens = 0;
      let violations = 0;
      let falseFinishes = 0;
      let missed = 0;
      const kinds = new Set<string>();
      for (let r = 0; r < options.runs; r++) {
        // The same seed per (behaviour, run) for every policy: they face identical agents.
        const seed = (options.seed * 1_000_003 + b * 7_919 + r) >>> 0;
        const m = await simulateRun(behaviour, policy, seed, r);
        completed += m.completed;
        completable += m.completable;
        nudges += m.nudges;
        wasted += m.wastedNudges;
        maxWasted = Math.max(maxWasted, m.wastedNudges);
        longest = Math.max(longest, m.longestUnproductiveRun);
        tokens += m.nudgeTokens;
        violations += m.violations;
        falseFinishes += m.falseFinishes;
        missed += m.missedFalseFinishes;
        for (const kind of m.violationKinds) kinds.add(kind);
      }
      rows.push({
        behaviour: behaviour.name,
        policy,
        completion: completable === 0 ? 1 : round2(completed / completable),
        nudges: round2(nudges / options.runs),
        wastedNudges: round2(wasted / options.runs),
        longestUnproductiveRun: longest,
        nudgeTokens: Math.round(tokens / options.runs),
        violations,
        completable,
        maxWastedNudges: maxWasted,
        violationKinds: [...kinds],
        falseFinishes,
        missedFalseFinishes: missed,
      });
    }
  }
  return rows;
}

export interface TargetCheck {
  name: string;
  ok: boolean;
  detail: string;
}

const STUCK = ["never-progressing", "reworder", "toggler"];

/** The targets for the project's default policy, checked on the rows. */
export function checkTargets(rows: SimRow[]): TargetCheck[] {
  const of = (behaviour: string, policy: string) =>
    rows.find((r) => r.behaviour === behaviour && r.policy === policy);
  const checks: TargetCheck[] = [];
  const lazy = of("lazy-stopper", "default");
  if (lazy) {
    checks.push({
      name: "lazy-stopper completion >= 95%",
      ok: lazy.completion >= 0.95,
      detail: `${Math.round(lazy.completion * 100)}%`,
    });
  }
  for (const behaviour of STUCK) {
    const row = of(behaviour, "default");
    if (row) {
      checks.push({
        name: `${behaviour}: <= 1 wasted nudge per stuck episode`,
        ok: row.maxWastedNudges <= 1,
        detail: `worst run ${row.maxWastedNudges}`,
      });
    }
  }
  const flaky = of("flaky-provider", "default");
  if (flaky) {
    checks.push({
      name: "flaky-provider completion = 100%",
      ok: flaky.completion === 1,
      detail: `${Math.round(flaky.completion * 100)}%`,
    });
  }
  const redirected = of("redirecting-user", "default");
  if (redirected) {
    const early = redirected.violationKinds.filter((k) => k.includes("redirected")).length;
    checks.push({
      name: "redirecting-user: no nudge before the agent touches its list again",
      ok: early === 0,
      detail: early === 0 ? "none" : "nudged",
    });
  }
  const finisher = of("false-finisher", "default+verify");
  if (finisher) {
    const caught = finisher.falseFinishes - finisher.missedFalseFinishes;
    checks.push({
      name: "false-finisher with verify: 100% of false finishes caught, the work done",
      ok: finisher.missedFalseFinishes === 0 && finisher.completion === 1,
      detail: `${caught} of ${finisher.falseFinishes} caught, ${Math.round(finisher.completion * 100)}% really done`,
    });
    checks.push({
      name: "false-finisher with verify: 0 violations, within the nudge budget",
      ok: finisher.violations === 0,
      detail: `${finisher.violations} violations, ${finisher.nudges} nudges per run`,
    });
  }
  const defaults = rows.filter((r) => r.policy === "default" || r.policy === "default+verify");
  const violations = defaults.reduce((s, r) => s + r.violations, 0);
  checks.push({ name: "0 violations", ok: violations === 0, detail: String(violations) });
  for (const row of defaults.filter((r) => r.policy === "default")) {
    const baselines = rows.filter(
      (r) =>
        r.behaviour === row.behaviour && ["none", "naive", "once-per-cycle"].includes(r.policy),
    );
    const best = Math.max(...baselines.map((r) => r.completion));
    checks.push({
      name: `${row.behaviour}: completion within 2 points of the best baseline`,
      ok: row.completion >= best - 0.02,
      detail: `${Math.round(row.completion * 100)}% vs ${Math.round(best * 100)}%`,
    });
  }
  return checks;
}
