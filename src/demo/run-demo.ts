import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createToolset } from "../core/dialects/index.js";
import { resolveScope } from "../core/scope/index.js";
import type { PresetName, Scope, Store } from "../core/types.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { createFileStore } from "../store/file/index.js";
import type { Style } from "../ui/style.js";
import { DemoClock, SimulatedAgent } from "./agent.js";
import { SCENARIOS } from "./scenarios.js";
import {
  type DemoReport,
  dashboardCommand,
  exploreCommands,
  type ScenarioReport,
  summaryLines,
} from "./summary.js";
import { Transcript } from "./transcript.js";

/** The host name the demo's scopes are filed under: `demo session finisher`, ... */
export const DEMO_HOST = "demo";

/** How far back the simulated clock starts: longer than every scenario's simulated time together. */
export const DEMO_CLOCK_LEAD_MS = 60 * 60_000;

export interface DemoOptions {
  /** Folder for the file store; default a new temporary folder, left in place. */
  dir?: string;
  preset?: PresetName;
  /** Receives the transcript and summary, line by line; nothing is printed when absent. */
  print?: (line: string) => void;
  style: Style;
  /** How to invoke this CLI in the printed commands. */
  program: string;
}

export function demoScope(name: string): Scope {
  const scope = resolveScope({ kind: "session", host: DEMO_HOST, sessionId: name });
  if (scope === null) throw new Error(`demo: no scope for ${name}`);
  return scope;
}

/**
 * Runs the five scripted scenarios with simulated agents through the real
 * runtime on the real file store, and reports what happened. The store keeps
 * everything for `list`, `show` and `why`; the demo's own scopes from an
 * earlier run in the same folder are reset first, and no other scope is touched.
 */
export async function runDemo(options: DemoOptions): Promise<DemoReport> {
  const dir = options.dir
    ? resolve(options.dir)
    : await mkdtemp(join(tmpdir(), "todo-continuation-demo-"));
  const preset = options.preset ?? "default";
  const print = options.print ?? (() => undefined);
  const transcript = new Transcript(print, options.style);
  const clock = new DemoClock(Date.now() - DEMO_CLOCK_LEAD_MS);
  let store: Store = createFileStore({ root: dir });
  const newRuntime = () => new ContinuationRuntime({ store, preset, now: clock.now });
  let runtime = newRuntime();
  const tools = createToolset({ dialect: runtime.dialect });

  for (const scenario of SCENARIOS) await store.deleteScope(demoScope(scenario.name));

  transcript.raw(
    options.style.bold("todo-continuation demo: SIMULATED agents (scripted; no model is called)"),
  );
  transcript.raw("driving the real ContinuationRuntime on the real file store.");
  transcript.raw(`store: ${dir}`);
  transcript.raw(
    `preset: ${preset}, tools: the ${runtime.dialect} dialect, simulated time over the last hour`,
  );

  const reports: ScenarioReport[] = [];
  for (const [index, scenario] of SCENARIOS.entries()) {
    transcript.heading(`${index + 1}. ${scenario.name}: ${scenario.title}`);
    const agents: SimulatedAgent[] = [];
    const outcome = await scenario
      .run({
        agent(name) {
          const agent = new SimulatedAgent(runtime, demoScope(name), tools, transcript, clock);
          agents.push(agent);
          return agent;
        },
        async restart() {
          await store.close();
          store = createFileStore({ root: dir });
          runtime = newRuntime();
          return runtime;
        },
        transcript,
        clock,
      })
      .catch((error: unknown) => ({
        pass: false,
        detail: `the scenario threw: ${error instanceof Error ? error.message : String(error)}`,
      }));
    const agent = agents[0];
    const report: ScenarioReport = {
      name: scenario.name,
      title: scenario.title,
      pass: outcome.pass,
      detail: outcome.detail,
      scope: demoScope(scenario.name).key,
      nudges: agent?.nudges.length ?? 0,
      decisions: agent?.outcomes() ?? [],
    };
    reports.push(report);
    const line = summaryLines([report])[0] ?? "";
    transcript.raw(`  ${report.pass ? options.style.green(line) : options.style.red(line)}`);
  }
  await store.close();
  if (clock.now() > Date.now()) throw new Error("demo: the simulated clock overtook the real one");

  const explore = exploreCommands(options.program, dir);
  const passed = reports.filter((r) => r.pass).length;
  transcript.heading("Summary (simulated agents; real runtime and file store)");
  for (const line of summaryLines(reports)) transcript.raw(line);
  transcript.heading("The store is left in place. Explore it:");
  for (const command of explore) transcript.raw(`  ${command}`);
  const dashboard = dashboardCommand(options.program, dir);
  transcript.heading("Watch every scope live in the dashboard:");
  transcript.raw(`  ${dashboard}`);
  return {
    simulated: true,
    dir,
    preset,
    passed,
    failed: reports.length - passed,
    scenarios: reports,
    explore,
    dashboard,
  };
}
