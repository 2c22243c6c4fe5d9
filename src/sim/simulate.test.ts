import { describe, expect, it } from "vitest";
import { BEHAVIOURS } from "./behaviours.js";
import { checkTargets, simulate } from "./simulate.js";

describe("policy simulation", () => {
  it("is deterministic for a seed", async () => {
    const options = { seed: 7, runs: 2, policies: ["naive", "default"] as const };
    expect(await simulate(options)).toEqual(await simulate(options));
  });

  it("the default policy meets every target on a small sample", async () => {
    const rows = await simulate({ seed: 3, runs: 3 });
    const misses = checkTargets(rows).filter((c) => !c.ok);
    expect(misses).toEqual([]);
  });

  it("the baselines show the failures the engine guards against", async () => {
    const rows = await simulate({
      seed: 3,
      runs: 2,
      behaviours: BEHAVIOURS.filter((b) =>
        ["never-progressing", "aborted-run", "lazy-stopper"].includes(b.name),
      ),
      policies: ["none", "naive", "default"],
    });
    const row = (b: string, p: string) => rows.find((r) => r.behaviour === b && r.policy === p);
    // The naive enforcer runs away on an agent that never progresses...
    expect(row("never-progressing", "naive")?.violationKinds.join()).toMatch(/runaway/);
    // ...and nudges after the user pressed Esc.
    expect(row("aborted-run", "naive")?.violationKinds.join()).toMatch(/aborted/);
    // No continuation leaves a lazy agent's list unfinished.
    expect(row("lazy-stopper", "none")?.completion).toBeLessThan(0.5);
    expect(row("lazy-stopper", "default")?.completion).toBe(1);
  });

  it("the default policy recovers from a flaky provider and leaves a redirected session alone", async () => {
    const rows = await simulate({
      seed: 5,
      runs: 4,
      behaviours: BEHAVIOURS.filter((b) =>
        ["flaky-provider", "redirecting-user", "compacting-worker"].includes(b.name),
      ),
      policies: ["naive", "typeclaw", "default"],
    });
    const row = (b: string, p: string) => rows.find((r) => r.behaviour === b && r.policy === p);
    expect(row("flaky-provider", "default")).toMatchObject({ completion: 1, violations: 0 });
    expect(row("redirecting-user", "default")?.violations).toBe(0);
    expect(row("redirecting-user", "naive")?.violationKinds.join()).toMatch(/redirected/);
    // A compaction is not the user: a 3-nudge budget stays 3 nudges across it.
    expect(row("compacting-worker", "typeclaw")).toMatchObject({ violations: 0 });
    expect(row("compacting-worker", "typeclaw")?.nudges).toBeLessThanOrEqual(3);
    expect(row("compacting-worker", "default")).toMatchObject({ completion: 1, violations: 0 });
  });

  it("a false finisher: with verify every false finish is caught and the work done; without, it stops early", async () => {
    const rows = await simulate({
      seed: 11,
      runs: 6,
      behaviours: BEHAVIOURS.filter((b) => b.name === "false-finisher"),
      policies: ["none", "naive", "default", "default+verify"],
    });
    const row = (p: string) => rows.find((r) => r.policy === p);
    for (const p of ["none", "naive", "default"]) {
      // Every item marked done, the check never asked: the work is left undone.
      expect(row(p)).toMatchObject({ falseFinishes: 6, missedFalseFinishes: 6, nudges: 0 });
      expect(row(p)?.completion).toBeLessThan(0.5);
    }
    expect(row("default+verify")).toMatchObject({
      falseFinishes: 6,
      missedFalseFinishes: 0,
      completion: 1,
      violations: 0,
    });
    expect(row("default+verify")?.nudges).toBeGreaterThan(0);
    const targets = checkTargets(rows).filter((c) => c.name.includes("false-finisher with verify"));
    expect(targets.map((c) => c.ok)).toEqual([true, true]);
  });
});
