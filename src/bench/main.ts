import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { closeInstruction } from "../core/dialects/index.js";
import {
  benchDecide,
  benchList,
  benchSummarize,
  benchWholeDecision,
} from "../core/engine/bench.js";
import { PRESETS } from "../core/engine/presets.js";
import { estimateTokens, NUDGE_STYLES, renderNudge } from "../core/nudge/index.js";
import { benchFileStore } from "../store/file/bench.js";
import { benchLockWait } from "../store/file/lock-bench.js";
import { benchPostgres } from "../store/postgres/bench.js";
import { benchDashboard } from "../ui/bench.js";
import { benchDashboardProcess, benchStall } from "../ui/bench-live.js";
import { benchCachedStop, benchHookStop } from "../verify/bench.js";
import { benchListFiles, benchListPostgres } from "./cli-list.js";
import { enforcerBytesPerSession } from "./enforcer-memory.js";
import { benchHookProcess } from "./hook.js";
import { benchHookLatency, LATENCY_HOSTS, type LatencyHost } from "./hook-latency.js";
import { benchIdleToNudge } from "./idle.js";
import { benchPiToolCall } from "./pi.js";
import { benchServerCommit } from "./server-commit.js";
import { pairedDifference, pairedRatio, percentile, summarizeRuns } from "./stats.js";

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
const markdown = process.argv.includes("--markdown");
const quick = process.argv.includes("--quick");
/** `--only decision,pi`: run only these groups (all by default). */
const GROUPS = [
  "decision",
  "pi",
  "nudge",
  "filestore",
  "memory",
  "idle",
  "hook",
  "postgres",
  "ui",
  "cli",
  "verify",
] as const;
const only = onlyGroups(process.argv);

function onlyGroups(argv: readonly string[]): Set<string> {
  const at = argv.indexOf("--only");
  if (at < 0) return new Set(GROUPS);
  const names = (argv[at + 1] ?? "").split(",").filter((n) => n !== "");
  const unknown = names.filter((n) => !(GROUPS as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0) {
    process.stderr.write(`--only takes a comma-separated list of: ${GROUPS.join(", ")}\n`);
    process.exit(2);
  }
  return new Set(names);
}
const rows: BenchRow[] = [];

function say(line: string): void {
  // With --json or --markdown, stdout carries only the result; progress goes to stderr.
  (json || markdown ? process.stderr : process.stdout).write(`${line}\n`);
}

function add(row: BenchRow): void {
  rows.push(row);
}

function atMost(limit: number) {
  return { target: `<= ${limit}`, check: (v: number) => v <= limit };
}
function result(goal: { target: string; check: (v: number) => boolean }, value: number) {
  return { target: goal.target, ok: goal.check(value) };
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

  if (only.has("decision")) {
    for (const count of [50, 500]) {
      say(`a whole decision (summarize + decide on a fresh read) at ${count} todos...`);
      const iterations = count === 500 ? 5_000 : 20_000;
      micro(
        `decision.${count}`,
        times(runs, () => benchWholeDecision(count, iterations)),
        atMost(count === 50 ? 6 : 50),
      );
      micro(
        `summarize.${count}`,
        times(runs, () => benchSummarize(count, iterations)),
      );
      micro(
        `decide.${count}`,
        times(runs, () => benchDecide(count, iterations)),
        count === 50 ? atMost(5) : undefined,
      );
    }
  }

  if (only.has("pi")) {
    for (const count of [50, 500]) {
      say(`pi todo_write (done + start) at ${count} tasks...`);
      micro(
        `pi.tool_call.${count}`,
        times(runs, () => benchPiToolCall(count, count === 500 ? 1_000 : 5_000)),
        atMost(count === 50 ? 40 : 400),
      );
    }
  }

  if (only.has("nudge")) await nudgeRows(runs);
  if (only.has("filestore")) await fileStoreRows(runs);
  if (only.has("memory")) await memoryRows();
  if (only.has("idle")) await idleRows();
  if (only.has("hook")) await hookRows(runs);
  if (only.has("postgres")) await postgresRows();
  if (only.has("ui")) {
    await uiRows(runs);
    await uiLiveRows();
  }
  if (only.has("cli")) await cliRows();
  if (only.has("verify")) await verifyRows(runs);
  report();
}

async function verifyRows(runs: number): Promise<void> {
  say(
    `verify: a stop on an unchanged, already verified git tree of 2,000 files (load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")})...`,
  );
  // In a long-lived process (OpenCode, pi, the runtime) the watch answers on
  // Linux; a hook's new process has only the stat witness.
  const inProcess = process.platform === "linux" ? "watch" : "stats";
  for (const [name, path, goal] of [
    ["verify.cached_stop.overhead_ms", inProcess, atMost(5)],
    ["verify.cached_stop.stats_ms", "stats", null],
  ] as const) {
    const samples: number[][] = [];
    const cpu: number[] = [];
    for (let i = 0; i < runs; i++) {
      const out = await benchCachedStop(2_000, 30, path);
      samples.push(out.samples);
      cpu.push(out.cpuMs);
    }
    const row = msRow(name, samples);
    add(goal === null ? row : { ...row, ...result(goal, row.value as number) });
    add({
      name: name.replace(/_ms$/, "_cpu_ms"),
      value: round(median(cpu)),
      unit: "ms",
      target: null,
      ok: null,
    });
  }
  if (process.platform !== "linux") return;
  // A hook's new process per stop, with the project's shared watcher running.
  const samples: number[][] = [];
  const cpu: number[] = [];
  let fallbacks = 0;
  for (let i = 0; i < runs; i++) {
    const out = await benchHookStop(2_000, 20);
    samples.push(out.samples);
    cpu.push(out.cpuMs);
    fallbacks += out.fallbacks;
  }
  const row = msRow("verify.cached_stop.hook_ms", samples);
  add({ ...row, ...result(atMost(5), row.value as number) });
  add({
    name: "verify.cached_stop.hook_cpu_ms",
    value: round(median(cpu)),
    unit: "ms",
    target: null,
    ok: null,
  });
  add({
    name: "verify.cached_stop.hook_fallbacks",
    value: fallbacks,
    unit: "stops",
    target: null,
    ok: null,
  });
  say(
    `  (load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")})`,
  );
}

async function nudgeRows(runs: number): Promise<void> {
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
}

async function fileStoreRows(runs: number): Promise<void> {
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

    say("file store: a commit as the resident hook server runs it vs in a hook's own process...");
    for (const documents of [1, 2] as const) {
      const inServer: number[][] = [];
      const afterAnswer: number[][] = [];
      const inPlace: number[][] = [];
      for (let r = 0; r < Math.max(3, runs - 2); r++) {
        const one = await benchServerCommit({
          dir,
          iterations: quick ? 20 : 60,
          documents,
          pauseMs: 20,
        });
        inServer.push(one.inServer);
        afterAnswer.push(one.afterAnswer);
        inPlace.push(one.inPlace);
      }
      const row = `filestore.replace.${documents}_docs`;
      micro(`${row}.server_event`, inServer);
      micro(`${row}.server_event.after_answer`, afterAnswer);
      micro(`${row}.own_process`, inPlace);
      add({
        name: `${row}.server_event.ratio`,
        value: round(summarizeRuns(inServer).p50 / summarizeRuns(inPlace).p50),
        unit: "x",
        target: null,
        ok: null,
      });
    }

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
}

/** Scopes in the stores `list` is timed over. */
const LIST_SCOPES = 10_000;

async function cliRows(): Promise<void> {
  const runs = quick ? 2 : 3;
  const goal = atMost(2000);
  say(`list over a file store of ${LIST_SCOPES} scopes...`);
  const dir = mkdtempSync(join(tmpdir(), "tc-bench-list-"));
  try {
    const files = await benchListFiles(dir, LIST_SCOPES, runs);
    add(wholeRunsRow(`cli.list.${LIST_SCOPES}`, files, goal));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const name = `cli.list.postgres.${LIST_SCOPES}`;
  const url =
    process.env.TODO_CONTINUATION_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const reachable = await canConnect(url);
  if (reachable !== true) {
    say(`SKIPPED ${name}: no PostgreSQL at ${redact(url)} (${reachable})`);
    add({
      name: `${name}_ms`,
      value: null,
      unit: "",
      target: goal.target,
      ok: null,
      skipped: reachable,
    });
    return;
  }
  say(`list over PostgreSQL with ${LIST_SCOPES} scopes...`);
  const db = await benchListPostgres(url, LIST_SCOPES, runs);
  add(wholeRunsRow(name, db, goal));
}

/** A row of whole-command timings: the median run, and how much the runs disagree. */
function wholeRunsRow(
  name: string,
  runsMs: number[],
  goal: { target: string; check: (v: number) => boolean },
): BenchRow {
  const stats = summarizeRuns(runsMs.map((ms) => [ms]));
  return {
    name: `${name}_ms`,
    value: Math.round(stats.p50),
    unit: "ms",
    ...result(goal, stats.p50),
    spread: round(stats.spread),
  };
}

async function memoryRows(): Promise<void> {
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
}

async function uiRows(runs: number): Promise<void> {
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
}

/** The built CLI, next to this file's folder in dist/. */
const CLI_PATH = fileURLToPath(new URL("../cli/main.js", import.meta.url));

async function uiLiveRows(): Promise<void> {
  const scopes = quick ? 2_000 : 10_000;
  say(`dashboard process on a file store of ${scopes} scopes: ready, stop visible, stalls...`);
  const dir = mkdtempSync(join(tmpdir(), "tc-bench-ui-"));
  try {
    const live = await benchDashboardProcess(CLI_PATH, dir, scopes, 10);
    add({
      name: `ui.ready.${scopes}`,
      value: Math.round(live.readyMs),
      unit: "ms",
      ...result(atMost(3000), live.readyMs),
    });
    const slowest = Math.max(...live.overviewMs);
    add({
      name: `ui.overview.${scopes}_ms`,
      value: round(median(live.overviewMs)),
      unit: "ms",
      target: "<= 1000",
      ok: slowest <= 1000,
      p99: round(slowest),
    });
    if (live.peakRssMb !== null) {
      add({
        name: "ui.rss_mb",
        value: Math.round(live.peakRssMb),
        unit: "MB",
        ...result(atMost(300), live.peakRssMb),
      });
    }
    const worst = Math.max(...live.stopVisibleMs);
    add({
      name: "ui.stop_visible_ms",
      value: round(median(live.stopVisibleMs)),
      unit: "ms",
      target: "<= 1000",
      ok: worst <= 1000,
      p99: round(worst),
    });
    const stall = await benchStall(dir, scopes);
    const maxStall = Math.max(stall.servingMaxMs, stall.reloadingMaxMs);
    say(
      `  event-loop stall: ${round(stall.servingMaxMs)} ms serving, ${round(stall.reloadingMaxMs)} ms reloading, ${round(stall.idleMaxMs)} ms with nothing running (the machine's own noise)`,
    );
    add({
      name: "ui.max_stall_ms",
      value: round(maxStall),
      unit: "ms",
      ...result(atMost(100), maxStall),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function idleRows(): Promise<void> {
  say("idle to nudge through the enforcer (file store, no debounce or countdown)...");
  const dir = mkdtempSync(join(tmpdir(), "tc-bench-"));
  try {
    const samples = await benchIdleToNudge({ iterations: quick ? 30 : 100, dir });
    add({
      name: "enforcer.idle_to_nudge.p50_ms",
      value: round(percentile(samples, 50)),
      unit: "ms",
      target: null,
      ok: null,
      p99: round(percentile(samples, 99)),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function hookRows(runs: number): Promise<void> {
  say("Claude Code hook process vs a bare node start...");
  const dir = mkdtempSync(join(tmpdir(), "tc-bench-"));
  try {
    const { hook, bare, uncached, inProcess } = await benchHookProcess({
      iterations: quick ? 8 : 60,
      dir,
    });
    for (const [name, samples] of [
      ["hook.claude_code.p50_ms", hook],
      ["hook.claude_code.in_process.p50_ms", inProcess],
      ["hook.claude_code.no_code_cache.p50_ms", uncached],
      ["hook.bare_node.p50_ms", bare],
    ] as const) {
      add({
        name,
        value: round(percentile(samples, 50)),
        unit: "ms",
        target: null,
        ok: null,
        p99: round(percentile(samples, 99)),
      });
    }
    // Each stop against the bare start timed just before it (see pairedRatio).
    const ratio = pairedRatio([hook], [bare]);
    const goal = atMost(1.25);
    add({ name: "hook.claude_code.ratio", value: round(ratio), unit: "x", ...result(goal, ratio) });
    // Without the resident server: each event loads and runs the bundle in its own process.
    add({
      name: "hook.claude_code.in_process.ratio",
      value: round(percentile(inProcess, 50) / percentile(bare, 50)),
      unit: "x",
      target: null,
      ok: null,
    });
    // What the hook adds to a bare node start, whatever that start costs on the machine: each
    // stop less the bare start just before it.
    add({
      name: "hook.claude_code.overhead_ms",
      value: round(pairedDifference([hook], [bare])),
      unit: "ms",
      target: null,
      ok: null,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  say("hook process latency, Codex vs Claude Code (a blocking Stop)...");
  // 24 stops a run: as many as the parley preset's 25 turns let one session block. A `p50_ms` row
  // is the median of the runs' medians, a ratio row the median of the runs' paired ratios: five
  // runs, so one slow spell of the machine's disk (each stop flushes its state) moves it less
  // than it did the median of three.
  const hookRuns = times(runs, () => benchHookLatency(quick ? 4 : 24));
  const stops = (host: LatencyHost) => hookRuns.map((r) => r.stops[host]);
  /** The bare starts timed just before each of a host's stops, run by run. */
  const bares = (host: LatencyHost) => hookRuns.map((r) => r.bare[host]);
  add(msRow("hook.codex.stop.p50_ms", stops("codex")));
  add(msRow("hook.claude-code.stop.p50_ms", stops("claudeCode")));
  add(msRow("hook.gemini.after_agent.p50_ms", stops("gemini")));
  add(msRow("hook.qwen.stop.p50_ms", stops("qwen")));
  add(msRow("hook.copilot.agent_stop.p50_ms", stops("copilot")));
  // The bare starts the rows below divide by: one just before each stop.
  add(
    msRow(
      "hook.per_host.bare_node.p50_ms",
      hookRuns.map((r) => LATENCY_HOSTS.flatMap((h) => r.bare[h])),
    ),
  );
  /** A host's stops against the bare starts timed just before them (see `pairedRatio`). */
  const pairedOf = (host: LatencyHost) => pairedRatio(stops(host), bares(host));
  for (const host of ["codex", "gemini", "qwen", "copilot"] as const) {
    const ratio = pairedOf(host);
    add({
      name: `hook.${host}.ratio`,
      value: round(ratio),
      unit: "x",
      ...result(atMost(1.25), ratio),
    });
    // The same pairs in milliseconds: on a machine whose bare start is fast, the ratio's
    // 1.25 leaves fewer of them.
    add({
      name: `hook.${host}.overhead_ms`,
      value: round(pairedDifference(stops(host), bares(host))),
      unit: "ms",
      target: null,
      ok: null,
    });
  }
  // Each host against its own bare starts first: a slow spell between the two hosts' stops of a
  // round does not count as one hook's cost.
  const hookRatio = pairedOf("codex") / pairedOf("claudeCode");
  add({
    name: "hook.codex_vs_claude_code.ratio",
    value: round(hookRatio),
    unit: "x",
    target: "<= 1.1",
    ok: hookRatio <= 1.1,
  });
}

async function postgresRows(): Promise<void> {
  const url =
    process.env.TODO_CONTINUATION_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const reachable = await canConnect(url);
  const names = [
    "postgres.decisions_per_s.1",
    "postgres.decisions_per_s.8",
    "postgres.raw_cas_per_s.8",
    "postgres.decisions_per_s.8.ratio_to_raw",
  ];
  if (reachable !== true) {
    for (const name of names) {
      say(`SKIPPED ${name}: no PostgreSQL at ${redact(url)} (${reachable})`);
      const target = name.endsWith("ratio_to_raw") ? ">= 0.5" : null;
      add({ name, value: null, unit: "", target, ok: null, skipped: String(reachable) });
    }
    return;
  }
  const durationMs = quick ? 1_500 : 3_000;
  const rounds = quick ? 1 : 2;
  const rate = async (workers: number, mode: "store" | "raw") => {
    const result = await benchPostgres({ connectionString: url, workers, durationMs, mode });
    if (result.loggedDecisions !== result.decisions) {
      throw new Error(
        `postgres ${mode}: ${result.decisions} decisions but ${result.loggedDecisions} recorded`,
      );
    }
    return result.decisionsPerSecond;
  };
  say("PostgreSQL atomic decisions with 1 worker...");
  const single: number[] = [];
  for (let r = 0; r < rounds; r++) single.push(await rate(1, "store"));
  addRate("postgres.decisions_per_s.1", single);
  say("PostgreSQL: 8 workers, the store and the raw compare-and-set baseline in turn...");
  const ours: number[] = [];
  const raw: number[] = [];
  for (let r = 0; r < rounds; r++) {
    ours.push(await rate(8, "store"));
    raw.push(await rate(8, "raw"));
  }
  addRate("postgres.decisions_per_s.8", ours);
  addRate("postgres.raw_cas_per_s.8", raw);
  const ratio = mean(ours) / mean(raw);
  add({
    name: "postgres.decisions_per_s.8.ratio_to_raw",
    value: round(ratio),
    unit: "x",
    ...result(atLeast(0.5), ratio),
  });
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function addRate(name: string, results: readonly number[]): void {
  const value = Math.round(mean(results));
  add({
    name,
    value,
    unit: "decisions/s",
    target: null,
    ok: null,
    spread: round((Math.max(...results) - Math.min(...results)) / value),
  });
}

function report(): void {
  if (json) {
    process.stdout.write(
      `${JSON.stringify(
        rows.map(({ name, value, unit, target, ok }) => ({ name, value, unit, target, ok })),
        null,
        2,
      )}\n`,
    );
  } else if (markdown) {
    printMarkdown();
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

function tableCells(): string[][] {
  return rows.map((r) => [
    r.name,
    r.value === null ? "skipped" : String(r.value),
    r.unit,
    r.p99 === undefined ? "" : String(r.p99),
    r.spread === undefined ? "" : `${Math.round(r.spread * 100)}%`,
    r.target ?? "",
    r.ok === null ? "" : r.ok ? "yes" : "NO",
  ]);
}

const HEADER = ["benchmark", "median", "unit", "p99", "spread", "target", "ok"];

/** The rows as a Markdown table, ready to paste into the README. */
function printMarkdown(): void {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  process.stdout.write(
    `${[line(HEADER), line(HEADER.map(() => "---")), ...tableCells().map(line)].join("\n")}\n`,
  );
}

function printTable(): void {
  const header = HEADER;
  const body = tableCells();
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

let finished = false;
// A measurement whose promise never settles would otherwise end the process
// with exit code 0 and no rows: make that a failure that says so.
process.on("beforeExit", () => {
  if (finished) return;
  process.stderr.write("bench failed: a measurement never finished (the event loop ran dry)\n");
  process.exitCode = 1;
});
main()
  .then(() => {
    finished = true;
  })
  .catch((error) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
