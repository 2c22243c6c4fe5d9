import type { DoctorCheck, DoctorFinding } from "../doctor.js";
import { hookStartsFinding } from "../hook-kit/doctor-command.js";
import { type InstalledCommand, twiceFinding } from "../hook-kit/doctor-copies.js";
import { shortestStop, verifyFindings } from "../hook-kit/doctor-verify.js";
import { missingProgram, versionFindings } from "../hook-kit/doctor-version.js";
import { readJsonFile } from "../hook-kit/settings-file.js";
import { detectVersion } from "../hook-kit/version.js";
import { enablesTodoWrite, qwenSettingsPath } from "./install.js";
import { QWEN } from "./protocol.js";
import { mergeQwenHooks, qwenCommand, qwenStopTimeout } from "./settings.js";

/**
 * The oldest release the end-to-end suite runs (docs/qwen.md): on 0.23.3 and older no stop is
 * nudged or even recorded (measured).
 */
export const MIN_QWEN_VERSION = "0.23.4";

const GATE = {
  host: QWEN,
  name: "Qwen Code",
  min: MIN_QWEN_VERSION,
  minReason: "the oldest tested",
  missing: missingProgram("hooks are", "qwen", "npm install -g @qwen-code/qwen-code (on Node 22)"),
  upgrade: "npm install -g @qwen-code/qwen-code@latest",
};

/**
 * `doctor` for Qwen Code: its version, our hooks in the project's or the user's settings,
 * complete, naming a script that exists, not switched off by
 * `disableAllHooks`, and a `todo_write` tool turned on. Nothing installed:
 * no findings.
 */
export const qwenDoctor: DoctorCheck = async (ctx) => {
  const findings: DoctorFinding[] = [];
  const say = (check: string, ok: boolean, message: string, fix: string) =>
    findings.push({ host: QWEN, check, ok, message, ...(ok ? {} : { fix }) });
  const values: unknown[] = [];
  const stops: { stopMs: number | null; target: "project" | "user" }[] = [];
  const commands: InstalledCommand[] = [];
  for (const target of ["project", "user"] as const) {
    const path = qwenSettingsPath(target, ctx.cwd, { ...ctx.env, HOME: ctx.home });
    const fix = `todo-continuation install qwen --${target}`;
    const file = await readJsonFile(path).catch((error: Error) => error);
    if (file instanceof Error) {
      say("settings", false, file.message, `fix ${path} by hand`);
      continue;
    }
    values.push(file.value);
    const command = qwenCommand(file.value);
    if (command === null) continue;
    // An event our install would still add is one the file lacks.
    const merged = mergeQwenHooks(file.value, command, path, 30);
    const missing = merged.changes.filter((c) => c.startsWith("added ")).map((c) => c.slice(6));
    const complete = missing.length === 0;
    say(
      "hooks",
      complete,
      complete ? `hooks installed in ${path}` : `${path} lacks our ${missing.join(", ")}`,
      fix,
    );
    findings.push(await hookStartsFinding(QWEN, command, path, fix, ctx));
    commands.push({ path, target, command });
    // Qwen reads a command hook's timeout in seconds, and 1000 or more in milliseconds.
    const timeout = qwenStopTimeout(file.value);
    stops.push({
      stopMs: timeout === null ? null : timeout >= 1000 ? timeout : timeout * 1000,
      target,
    });
  }
  const twice = await twiceFinding(QWEN, commands, ctx);
  if (twice !== null) findings.push(twice);
  const stop = shortestStop(stops);
  if (stop === null) return findings;
  const version = await detectVersion("qwen", ctx.env);
  findings.unshift(...versionFindings(GATE, version, { env: ctx.env, targets: [] }));
  findings.push(
    ...verifyFindings(QWEN, ctx, stop.stopMs, `todo-continuation install qwen --${stop.target}`),
  );
  const off = values.some((v) => (v as { disableAllHooks?: unknown })?.disableAllHooks === true);
  say(
    "enabled",
    !off,
    off ? "disableAllHooks is set: Qwen Code runs no hooks" : "hooks are enabled",
    'remove "disableAllHooks": true',
  );
  const tool = values.some(enablesTodoWrite);
  say(
    "todo-tool",
    tool,
    tool
      ? "todo_write is turned on"
      : "todo_write is off (Qwen Code's default): the agent keeps no list",
    'add "tools": {"todoWrite": {"enabled": true}} to .qwen/settings.json',
  );
  return findings;
};
