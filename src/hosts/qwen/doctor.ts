import { existsSync } from "node:fs";
import { commandScript } from "../claude-code/command.js";
import { installedCommand, installedStopTimeout } from "../claude-code/settings.js";
import type { DoctorCheck, DoctorFinding } from "../doctor.js";
import { verifyFindings } from "../doctor-verify.js";
import { readJsonFile } from "../settings-file.js";
import { enablesTodoWrite, isQwenHandler, type QwenTarget, qwenSettingsPath } from "./install.js";
import { QWEN, QWEN_EVENTS } from "./protocol.js";

type Json = Record<string, unknown>;

/** Events whose groups hold a handler of ours. */
function ourEvents(value: unknown): Set<string> {
  const hooks = (value as Json | null)?.hooks;
  const found = new Set<string>();
  for (const [event, groups] of Object.entries((hooks ?? {}) as Json)) {
    const all = Array.isArray(groups) ? groups : [];
    if (all.some((g) => ((g as Json | null)?.hooks as unknown[] | undefined)?.some(isQwenHandler)))
      found.add(event);
  }
  return found;
}

/** Qwen reads a command hook's `timeout` in seconds, and a value of 1000 or more in milliseconds. */
function timeoutMs(value: number | null): number | null {
  return value === null ? null : value >= 1000 ? value : value * 1000;
}

/**
 * `doctor` for Qwen Code: our hooks in the project's or the user's settings,
 * complete, naming a script that exists, not switched off by
 * `disableAllHooks`, and a `todo_write` tool turned on. Nothing installed:
 * no findings.
 */
export const qwenDoctor: DoctorCheck = async (ctx) => {
  const env = { ...ctx.env, HOME: ctx.home };
  const read = async (target: QwenTarget) => {
    const path = qwenSettingsPath(target, ctx.cwd, env);
    const file = await readJsonFile(path).catch((error: Error) => error);
    return { target, path, file };
  };
  const files = [await read("project"), await read("user")];
  const values = files.map((f) => (f.file instanceof Error ? null : f.file.value));
  const findings: DoctorFinding[] = [];
  const say = (check: string, ok: boolean, message: string, fix?: string) =>
    findings.push({ host: QWEN, check, ok, message, ...(ok || !fix ? {} : { fix }) });
  let stopMs: number | null | undefined;
  for (const [i, { target, path, file }] of files.entries()) {
    const fix = `todo-continuation install qwen --${target}`;
    if (file instanceof Error) {
      say("settings", false, file.message, `fix ${path} by hand`);
      continue;
    }
    const command = installedCommand(file.value, isQwenHandler);
    if (command === null) continue;
    const missing = QWEN_EVENTS.map((e) => e.event).filter((e) => !ourEvents(values[i]).has(e));
    say(
      "hooks",
      missing.length === 0,
      missing.length === 0
        ? `hooks installed in ${path}`
        : `${path} lacks our ${missing.join(", ")} hook(s)`,
      fix,
    );
    const script = commandScript(command, ctx.cwd);
    const found = script !== null && existsSync(script);
    say(
      "loadable",
      found,
      found
        ? `hook entry ${script} exists`
        : `the hook command names ${script ?? "no script"}, which does not exist`,
      fix,
    );
    stopMs ??= timeoutMs(installedStopTimeout(file.value, isQwenHandler));
  }
  if (stopMs === undefined) return findings;
  findings.push(...verifyFindings(QWEN, ctx, stopMs, "todo-continuation install qwen"));
  const off = values.some((v) => (v as Json | null)?.disableAllHooks === true);
  say(
    "enabled",
    !off,
    off ? "disableAllHooks is true: Qwen Code runs no hooks" : "hooks are enabled",
    'remove "disableAllHooks": true',
  );
  const tool = values.some(enablesTodoWrite);
  say(
    "todo-tool",
    tool,
    tool
      ? "todo_write is turned on"
      : "todo_write is off (Qwen Code's default): the agent keeps no list to continue",
    'add "tools": {"todoWrite": {"enabled": true}} to .qwen/settings.json',
  );
  return findings;
};
