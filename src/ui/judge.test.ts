import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIG_FILE } from "../config/load.js";
import { resolvePreset } from "../core/engine/presets.js";
import { formatDuration } from "../core/explain/numbers.js";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope } from "../core/types.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { burnRate, projectNearestLimit } from "./burn.js";
import { ScopeJudge } from "./judge.js";
import { spendCells } from "./pages/spend.js";
import { ScopeSource } from "./scope-source.js";

/**
 * The dashboard judges each scope by the limits its hook used: the project's
 * config file, found from the folder the scope recorded.
 */

const PROJECT_MAX = 3;
const MINUTE = 60_000;
const defaults = resolvePreset("default").limits;

let root: string;
let repo: string;
let env: Record<string, string | undefined>;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tc-judge-"));
  repo = join(root, "home", "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  env = { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "xdg") };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const writeConfig = (content: unknown) =>
  writeFileSync(join(repo, CONFIG_FILE), JSON.stringify(content));

/**
 * A scope its hook (judging by the project's PROJECT_MAX nudges) nudged
 * `nudges` times, a minute apart, in a store shared with the reader.
 */
async function nudged(nudges: number, sessionId = "w1", projectDir: string | null = repo) {
  const store = new MemoryStore();
  let now = 10 * MINUTE;
  const scope = resolveScope({ kind: "session", host: "claude-code", sessionId }) as Scope;
  const hook = new ContinuationRuntime({
    store,
    now: () => now,
    limits: { maxAutoTurns: PROJECT_MAX },
    ...(projectDir === null ? {} : { projectDir }),
  });
  const items = Array.from({ length: nudges + 2 }, (_, i) => `item ${i}`);
  await hook.turnStarted(scope, { real: true });
  for (let n = 0; n < nudges; n++) {
    // One item closed per turn: progress, so only the budget can stop it.
    await hook.setTodos(
      scope,
      items.map((content, i) => ({ content, status: i < n ? "completed" : "pending" })),
    );
    await hook.turnEnded(scope, { stopReason: "stop" });
    expect((await hook.runIdle(scope, { deliver: () => undefined })).action).toBe("inject");
    now += MINUTE;
  }
  // The turn the last nudge started ends, with progress: the next decision is on it.
  await hook.setTodos(
    scope,
    items.map((content, i) => ({ content, status: i < nudges ? "completed" : "pending" })),
  );
  await hook.turnEnded(scope, { stopReason: "stop" });
  // The reader runs the dashboard's own (default) runtime over the same store.
  const reader = new ContinuationRuntime({ store, now: () => now });
  return { store, scope, reader, now: () => now, advance: (ms: number) => (now += ms) };
}

describe("ScopeJudge", () => {
  it("decides by the project's limits, where the reader's own runtime would nudge", async () => {
    writeConfig({ limits: { maxAutoTurns: PROJECT_MAX } });
    const w = await nudged(PROJECT_MAX);
    const judge = new ScopeJudge(w.reader, { env });
    const judged = await judge.explain(w.scope);
    expect(judged.limits.file).toBe(join(repo, CONFIG_FILE));
    expect(judged.decision).toMatchObject({ action: "skip", reason: "max-auto-turns" });
    expect((await w.reader.explain(w.scope)).decision.action).toBe("inject");
  });

  it("one runtime per project, the reader's own for scopes without a file", async () => {
    writeConfig({ limits: { maxAutoTurns: PROJECT_MAX } });
    const w = await nudged(1);
    const judge = new ScopeJudge(w.reader, { env });
    const a = judge.limitsOf({ projectDir: repo });
    expect(judge.limitsOf({ projectDir: repo })).toBe(a);
    expect(judge.runtimeFor(a)).toBe(judge.runtimeFor(judge.limitsOf({ projectDir: repo })));
    expect(judge.runtimeFor(a).limits.maxAutoTurns).toBe(PROJECT_MAX);
    expect(judge.runtimeFor(judge.limitsOf({}))).toBe(w.reader);
  });

  it("a broken file decides config-invalid, as the hook does", async () => {
    writeConfig({ limits: { maxAutoTurns: "three" } });
    const w = await nudged(1);
    const judged = await new ScopeJudge(w.reader, { env }).explain(w.scope);
    expect(judged.decision).toMatchObject({ action: "skip", reason: "config-invalid" });
    expect(judged.nudge).toBeNull();
    expect(judged.limits.problem).toContain(join(repo, CONFIG_FILE));
  });
});

describe("the dashboard's rows and nearest limit", () => {
  it("budgets and the nearest limit are the project's, not the dashboard preset's", async () => {
    expect(defaults.maxAutoTurns).not.toBe(PROJECT_MAX);
    writeConfig({ limits: { maxAutoTurns: PROJECT_MAX } });
    const w = await nudged(PROJECT_MAX - 1);
    const source = new ScopeSource(new ScopeJudge(w.reader, { env }));
    await source.refresh("all");
    const row = source.row(w.scope.key);
    expect(row?.group).toBe("working");
    expect(row?.limits?.maxAutoTurns).toBe(PROJECT_MAX);
    expect(row?.limitsFrom?.file).toBe(join(repo, CONFIG_FILE));
    expect(row?.budgets.find((b) => b.name === "nudges")?.limit).toBe(PROJECT_MAX);
    const spend = row?.spend;
    if (row === undefined || spend == null) throw new Error("no open episode");
    const now = w.now();
    const rate = burnRate(spend.episode, spend.entries, now);
    const project = projectNearestLimit(
      spend.episode,
      rate,
      { ...defaults, maxAutoTurns: PROJECT_MAX },
      now,
    );
    const preset = projectNearestLimit(spend.episode, rate, defaults, now);
    expect(project?.limit).toBe("nudges");
    expect(project?.ms).not.toBe(preset?.ms);
    const cells = spendCells(row, now).text;
    expect(cells).toContain(`nudges in ${formatDuration(project?.ms ?? 0)}`);
  });

  it("a broken file: no projection, and the row names the problem", async () => {
    writeConfig({ limits: { maxAutoTurns: "three" } });
    const w = await nudged(1);
    const source = new ScopeSource(new ScopeJudge(w.reader, { env }));
    await source.refresh("all");
    const row = source.row(w.scope.key);
    if (row === undefined) throw new Error("no row");
    expect(row.limitsFrom?.problem).toContain("limits.maxAutoTurns");
    expect(row.group).not.toBe("working");
    expect(spendCells(row, w.now()).text).not.toContain(" in ");
  });

  it("a scope that recorded no folder: the dashboard's own preset, as before", async () => {
    writeConfig({ limits: { maxAutoTurns: PROJECT_MAX } });
    const w = await nudged(1, "w2", null);
    const source = new ScopeSource(new ScopeJudge(w.reader, { env }));
    await source.refresh("all");
    const row = source.row(w.scope.key);
    expect(row?.limits?.maxAutoTurns).toBe(defaults.maxAutoTurns);
    expect(row?.limitsFrom?.file).toBeNull();
  });
});
