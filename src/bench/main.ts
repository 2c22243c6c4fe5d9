import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { closeInstruction } from "../core/dialects/index.js";
import { benchDecide, benchList, benchSummarize } from "../core/engine/bench.js";
import { PRESETS } from "../core/engine/presets.js";
import { estimateTokens, NUDGE_STYLES, renderNudge } from "../core/nudge/index.js";
import { benchFileStore } from "../store/file/bench.js";
import { benchLockWait } from "../store/file/lock-bench.js";
import { benchPostgres } from "../store/postgres/bench.js";
import { benchDashboard } from "../ui/bench.js";
import { enforcerBytesPerSession } from "./enforcer-memory.js";
import { benchHookLatency } from "./hook-latency.js";
import { percentile, summarizeRuns } from "./stats.js";

/** One measured figure; `target` and `ok` are null where the issue set no target. */
export interface BenchRow {
  name: string;
  value: number | null;
  unit: string;
  target: string | null;
  ok: boolean | null;
  /** Per-run detail for the table (p99 and spread), absent for single figures. */
  p99?: number;
  spread?: number;
  skipped?: string;
}

const json = process.argv.includes("--json");
const quick = process.argv.includes("--quick");
const rows: BenchRow[] = [];

function say(line: string): void {
  // With --json, stdout carries only the JSON array; progress goes to stderr.
  (json ? process.stderr : process.stdout).write(`${line}\n`);
}

function add(row: BenchRow): void {
  rows.push(row);
}

function atMost(limit: number) {
  return { target: `<= ${limit}`, check: (v: number) => v <= limit };
}
function atLeast(limit: number) {
  return { target: `>= ${limit}`, check: (v: number) => v >= limit };
}

function micro(
  name: string,
  runs: number[][],
  goal?: { target: string; check: (v: number) => boolean },
): void {
  const stats = summarizeRuns(runs);
  add({
    name: `${name}.p50_us`,
    value: round(stats.p50),
    unit: "us",
    target: goal?.target ?? null,
    ok: goal ? goal.check(stats.p50) : null,
    p99: round(stats.p99),
    spread: round(stats.spread),
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function msRow(name: string, runs: number[][]): BenchRow {
  const stats = summarizeRuns(runs);
  return {
    name,
    value: round(stats.p50),
    unit: "ms",
    target: null,
    ok: null,
    p99: round(stats.p99),
    spread: round(stats.spread),
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function times<T>(n: number, fn: () => T): T[] {
  return Array.from({ length: n }, fn);
}

async function main(): Promise<void> {
  const runs = quick ? 2 : 5;
  say(`todo-continuation benchmarks (${runs} runs each, warm-up first; node ${process.version})`);

  for (const count of [10, 50, 500]) {
    say(`decide() and summarize() at ${count} todos...`);
    const iterations = count === 500 ? 5_000 : 20_000;
    micro(
      `decide.${count}`,
      times(runs, () => benchDecide(count, iterations)),
      count === 50 ? atMost(5) : undefined,
    );
    micro(
      `summarize.${count}`,
      times(runs, () => benchSummarize(count, Math.floor(iterations / 4))),
    );
  }

  say("nudge rendering...");
  const list = benchList(10);
  const preset = PRESETS.default;
  const ctx = {
    closeInstruction: closeInstruction(preset.dialect),
    episode: null,
    limits: preset.limits,
  };
  for (const style of NUDGE_STYLES) {
    const text = renderNudge(style, list, ctx);
    add({
      name: `nudge.${style}.tokens.10_items`,
      value: estimateTokens(text),
      unit: "tokens",
      target: null,
      ok: null,
    });
  }
  const defaultText = renderNudge(preset.nudgeStyle, list, ctx);
  add({
    name: "nudge.tokens.10_items",
    value: estimateTokens(defaultText),
    unit: "tokens",
    target: null,
    ok: null,
  });
  micro(
    "nudge.render.10",
    times(runs, () => {
      const out: number[] = [];
      for (let i = 0; i < 2_000; i++) {
        const start = process.hrtime.bigint();
        renderNudge(preset.nudgeStyle, list, ctx);
        out.push(Number(process.hrtime.bigint() - start) / 1000);
      }
      return out.slice(200);
    }),
  );

  say("file store update vs raw temp+fsync+rename...");
  const dir = mkdtempSync(join(tmpdir(), "tc-bench-"));
  try {
    const ours: number[][] = [];
    const raw: number[][] = [];
    for (let r = 0; r < Math.max(3, runs - 2); r++) {
      const result = await benchFileStore({ iterations: quick ? 50 : 200, dir });
      ours.push(result.ours);
      raw.push(result.raw);
    }
    micro("filestore.update", ours);
    micro("filestore.raw", raw);
    const oursStats = summarizeRuns(ours);
    const rawStats = summarizeRuns(raw);
    const ratio = oursStats.p50 / rawStats.p50;
    add({
      name: "filestore.update.ratio",
      value: round(ratio),
      unit: "x",
      target: "<= 1.3",
      ok: ratio <= 1.3,
    });

    say("file store lock: 8 processes on one scope...");
    const lock = await benchLockWait({ processes: 8, durationMs: quick ? 1_000 : 3_000, dir });
    const waitP99 = percentile(lock.waits, 99);
    add({
      name: "filestore.lock.wait_p99_ms.8",
      value: round(waitP99),
      unit: "ms",
      target: "<= 250",
      ok: waitP99 <= 250,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  say("dashboard overview of 5,000 scopes...");
  const dashboard = await benchDashboard(5_000, runs);
  add({
    name: "ui.load.5000_ms",
    value: Math.round(dashboard.loadMs),
    unit: "ms",
    target: null,
    ok: null,
  });
  const overviewMedian = median(dashboard.overviewMs);
  add({
    name: "ui.overview.5000_ms",
    value: round(overviewMedian),
    unit: "ms",
    target: "<= 1000",
    ok: Math.max(...dashboard.overviewMs) <= 1000,
  });
  const liveMedian = median(dashboard.liveUpdateMs);
  add({
    name: "ui.live_update.5000_ms",
    value: round(liveMedian),
    unit: "ms",
    target: "<= 1000",
    ok: Math.max(...dashboard.liveUpdateMs) <= 1000,
  });

  say("idle enforcer memory at 10,000 sessions...");
  const perSession = await enforcerBytesPerSession(10_000);
  const limitPerSession = (20 * 1024 * 1024) / 10_000;
  add({
    name: "enforcer.bytes_per_session",
    value: Math.round(perSession),
    unit: "bytes",
    target: `<= ${Math.floor(limitPerSession)} (20 MB / 10,000)`,
    ok: perSession <= limitPerSession,
  });

  say("hook process latency, Codex vs Claude Code (a blocking Stop)...");
  const hookRuns = times(Math.max(3, runs - 2), () => benchHookLatency(quick ? 4 : 10));
  const codexHook = hookRuns.map((r) => r.codex);
  const claudeHook = hookRuns.map((r) => r.claudeCode);
  add(msRow("hook.codex.stop.p50_ms", codexHook));
  add(msRow("hook.claude-code.stop.p50_ms", claudeHook));
  add(
    msRow(
      "hook.gemini.after_agent.p50_ms",
      hookRuns.map((r) => r.gemini),
    ),
  );
  const hookRatio = summarizeRuns(codexHook).p50 / summarizeRuns(claudeHook).p50;
  add({
    name: "hook.codex_vs_claude_code.ratio",
    value: round(hookRatio),
    unit: "x",
    target: "<= 1.1",
    ok: hookRatio <= 1.1,
  });

  const url =
    process.env.TODO_CONTINUATION_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const reachable = await canConnect(url);
  for (const workers of [1, 8]) {
    const name = `postgres.decisions_per_s.${workers}`;
    const goal = workers === 8 ? atLeast(2000) : undefined;
    if (reachable !== true) {
      say(`SKIPPED ${name}: no PostgreSQL at ${redact(url)} (${reachable})`);
      add({
        name,
        value: null,
        unit: "decisions/s",
        target: goal?.target ?? null,
        ok: null,
        skipped: String(reachable),
      });
      continue;
    }
    say(`PostgreSQL atomic decisions with ${workers} worker(s)...`);
    const results: number[] = [];
    for (let r = 0; r < (quick ? 1 : 2); r++) {
      const result = await benchPostgres({
        connectionString: url,
        workers,
        durationMs: quick ? 1_500 : 3_000,
      });
      if (result.loggedDecisions !== result.decisions) {
        throw new Error(
          `${name}: ${result.decisions} decisions but ${result.loggedDecisions} log entries`,
        );
      }
      results.push(result.decisionsPerSecond);
    }
    const value = Math.round(results.reduce((a, b) => a + b, 0) / results.length);
    add({
      name,
      value,
      unit: "decisions/s",
      target: goal?.target ?? null,
      ok: goal ? goal.check(value) : null,
      spread: round((Math.max(...results) - Math.min(...results)) / value),
    });
  }

  if (json) {
    process.stdout.write(
      `${JSON.stringify(
        rows.map(({ name, value, unit, target, ok }) => ({ name, value, unit, target, ok })),
        null,
        2,
      )}\n`,
    );
  } else {
    printTable();
  }
  const failed = rows.filter((r) => r.ok === false);
  if (failed.length > 0)
    say(
      `\n${failed.length} figure(s) missed their target: ${failed.map((r) => r.name).join(", ")}`,
    );
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//");
}

async function canConnect(url: string): Promise<true | string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function printTable(): void {
  const header = ["benchmark", "median", "unit", "p99", "spread", "target", "ok"];
  const body = rows.map((r) => [
    r.name,
    r.value === null ? "skipped" : String(r.value),
    r.unit,
    r.p99 === undefined ? "" : String(r.p99),
    r.spread === undefined ? "" : `${Math.round(r.spread * 100)}%`,
    r.target ?? "",
    r.ok === null ? "" : r.ok ? "yes" : "NO",
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...body.map((row) => row[i]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  say("");
  say(line(header));
  say(line(widths.map((w) => "-".repeat(w))));
  for (const row of body) say(line(row));
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
