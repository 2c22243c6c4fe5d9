import { basename, isAbsolute, relative } from "node:path";

export interface ScenarioReport {
  name: string;
  title: string;
  pass: boolean;
  detail: string;
  /** The scope the scenario wrote, for `show`/`why`. */
  scope: string;
  nudges: number;
  /** Every idle decision in order: "inject" or the skip reason. */
  decisions: string[];
}

export interface DemoReport {
  simulated: true;
  dir: string;
  preset: string;
  passed: number;
  failed: number;
  scenarios: ScenarioReport[];
  /** Commands to explore what the demo left behind. */
  explore: string[];
  /** The one command that opens the dashboard on the demo's store. */
  dashboard: string;
}

/** One machine-checkable line per scenario: `PASS <name>: <what happened>`. */
export function summaryLines(scenarios: readonly ScenarioReport[]): string[] {
  const lines = scenarios.map((s) => `${s.pass ? "PASS" : "FAIL"} ${s.name}: ${s.detail}`);
  const passed = scenarios.filter((s) => s.pass).length;
  lines.push(`${passed}/${scenarios.length} scenarios passed`);
  return lines;
}

const SAFE = /^[\w@%+=:,./-]+$/;

/** Quotes an argument for a POSIX shell only when it needs it. */
export function shellWord(value: string): string {
  return SAFE.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * How to run this CLI again from the same folder: the installed command when
 * it was started through its bin, else `node <path to main.js>`.
 */
export function invocation(argv1: string | undefined, cwd: string): string {
  if (argv1 === undefined || basename(argv1) !== "main.js") return "todo-continuation";
  const rel = relative(cwd, argv1);
  const path = rel === "" || rel.startsWith("..") || isAbsolute(rel) ? argv1 : rel;
  return `node ${shellWord(path)}`;
}

export function exploreCommands(program: string, dir: string): string[] {
  const base = `${program} --dir ${shellWord(dir)}`;
  return [
    `${base} list`,
    `${base} show finisher`,
    `${base} why stuck`,
    `${base} log interrupted`,
    `${base} show restart`,
    `${base} why blocked`,
  ];
}

/** The command that serves the dashboard on the demo's store and opens it in a browser. */
export function dashboardCommand(program: string, dir: string): string {
  return `${program} --dir ${shellWord(dir)} ui --open`;
}
