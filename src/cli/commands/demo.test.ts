import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { DemoReport } from "../../demo/summary.js";
import { createFileStore } from "../../store/file/index.js";
import { runCli } from "../test-support/run-cli.js";
import { seed, TUI } from "../test-support/seed.js";

const folders: string[] = [];

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

const EXPECTED_DECISIONS: Record<string, string[]> = {
  finisher: ["inject", "no-incomplete-todos"],
  stuck: ["inject", "stagnation"],
  interrupted: [
    "inject",
    "user-abort-blocked",
    "user-abort-blocked",
    "inject",
    "no-incomplete-todos",
  ],
  restart: ["inject", "inject", "restart-kick-suppressed", "inject", "no-incomplete-todos"],
  blocked: ["only-blocked-todos", "only-blocked-todos"],
};

describe("demo", () => {
  it("prints a labelled transcript and one PASS line per scenario", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tc-cli-demo-"));
    folders.push(dir);
    const run = await runCli(["demo", "--dir", dir]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("SIMULATED agents (scripted; no model is called)");
    expect(run.stdout).toContain(`store: ${dir}`);
    const summary = run.stdout.slice(run.stdout.indexOf("Summary"));
    const passes = summary.match(/^PASS (\w+): .+$/gm) ?? [];
    expect(passes.map((l) => l.split(" ")[1]?.replace(":", ""))).toEqual(
      Object.keys(EXPECTED_DECISIONS),
    );
    expect(summary).toContain("5/5 scenarios passed");
    expect(summary).not.toMatch(/^FAIL/m);
    expect(run.stdout).toContain(`--dir ${dir} why stuck`);
    // The last line is the one command that opens the dashboard on this store.
    expect(run.stdout.trimEnd().split("\n").at(-1)?.trim()).toMatch(
      new RegExp(`--dir ${dir} ui --open$`),
    );
    // The first nudge carries the live list.
    expect(run.stdout).toMatch(/\| {3}\[2\] Enforce the password rules/);
  });

  it("reports machine-checkable results as JSON and leaves the store to explore", async () => {
    const run = await runCli(["demo", "--json"]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as DemoReport;
    folders.push(report.dir);
    expect(report).toMatchObject({ simulated: true, preset: "default", passed: 5, failed: 0 });
    for (const scenario of report.scenarios) {
      expect({ name: scenario.name, decisions: scenario.decisions, pass: scenario.pass }).toEqual({
        name: scenario.name,
        decisions: EXPECTED_DECISIONS[scenario.name],
        pass: true,
      });
    }
    expect(report.scenarios.find((s) => s.name === "restart")?.detail).toMatch(/at nudge #3/);

    const list = JSON.parse((await runCli(["--dir", report.dir, "list", "--json"])).stdout) as {
      scopes: { label: string }[];
    };
    expect(list.scopes.map((s) => s.label).sort()).toEqual(
      ["blocked", "finisher", "interrupted", "restart", "stuck"].map((n) => `demo session ${n}`),
    );
    const why = JSON.parse((await runCli(["--dir", report.dir, "why", "stuck", "--json"])).stdout);
    expect(why).toMatchObject({ action: "skip", reason: "stagnation" });
    const restart = JSON.parse(
      (await runCli(["--dir", report.dir, "show", "restart", "--json"])).stdout,
    );
    expect(restart.state.episode.autoTurns).toBe(3);
  });

  it("runs again in the same folder, resetting only its own scopes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tc-cli-demo-again-"));
    folders.push(dir);
    const store = createFileStore({ root: dir });
    await seed(store);
    await store.close();
    expect((await runCli(["demo", "--dir", dir, "--json"])).code).toBe(0);
    const again = JSON.parse((await runCli(["demo", "--dir", dir, "--json"])).stdout) as DemoReport;
    expect(again.passed).toBe(5);
    const tui = JSON.parse((await runCli(["--dir", dir, "show", TUI.key, "--json"])).stdout);
    expect(tui.todos.todos).toHaveLength(4);
  });

  it("refuses options its script does not support", async () => {
    const preset = await runCli(["demo", "--preset", "parley"]);
    expect(preset.code).toBe(2);
    expect(preset.stderr).toContain("scripted for the default preset");
    const pg = await runCli(["demo", "--database-url", "postgres://x@127.0.0.1/db"]);
    expect(pg.code).toBe(2);
  });
});
