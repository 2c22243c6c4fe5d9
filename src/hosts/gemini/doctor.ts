import type { DoctorCheck, DoctorContext, DoctorFinding } from "../doctor.js";
import { hookStartsFinding } from "../hook-kit/doctor-command.js";
import { type InstalledCommand, twiceFinding } from "../hook-kit/doctor-copies.js";
import { shortestStop, verifyFindings } from "../hook-kit/doctor-verify.js";
import { missingProgram, versionFindings } from "../hook-kit/doctor-version.js";
import { readJsonFile } from "../hook-kit/settings-file.js";
import { detectVersion } from "../hook-kit/version.js";
import { type GeminiTarget, geminiSettingsPath, trustedFoldersPath } from "./paths.js";
import {
  GEMINI_HOOK_SPECS,
  installedAfterAgentTimeout,
  isOurGeminiHandler,
  ourGeminiHandlers,
  todoToolOf,
  toolFactsOf,
} from "./settings.js";
import { folderTrustOf } from "./trust.js";

const HOST = "gemini";

/**
 * The oldest release the end-to-end suite runs (docs/gemini.md): on 0.38 a subagent's write_todos
 * reached the parent's list, and the parent was nudged about the child's items.
 */
export const MIN_GEMINI_VERSION = "0.39.0";

const GATE = {
  host: HOST,
  name: "Gemini CLI",
  min: MIN_GEMINI_VERSION,
  minReason: "the oldest tested",
  missing: missingProgram("hooks are", "gemini", "npm install -g @google/gemini-cli"),
  upgrade: "npm install -g @google/gemini-cli@latest",
};

type Json = Record<string, unknown>;

function eventsWithOurHooks(settings: unknown): Set<string> {
  const found = new Set<string>();
  const hooks = (settings as Json | null)?.hooks;
  if (typeof hooks !== "object" || hooks === null) return found;
  for (const [event, groups] of Object.entries(hooks as Json)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      const handlers = (group as Json | null)?.hooks;
      if (Array.isArray(handlers) && handlers.some(isOurGeminiHandler)) found.add(event);
    }
  }
  return found;
}

async function settingsOf(target: GeminiTarget, ctx: DoctorContext) {
  const env: Record<string, string | undefined> = { ...ctx.env, HOME: ctx.home };
  const path = geminiSettingsPath(target, ctx.cwd, env);
  try {
    const file = await readJsonFile(path);
    return { path, value: file.value, error: null as string | null };
  } catch (error) {
    return { path, value: null, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * `doctor` for Gemini CLI: are our hooks in the project's or the user's
 * settings, complete, pointing at a script that exists, in a trusted folder
 * (project installs), with hooks switched on, and does the agent have a todo
 * tool at all. Nothing installed: no findings.
 */
export const geminiDoctor: DoctorCheck = async (ctx) => {
  const findings: DoctorFinding[] = [];
  const env: Record<string, string | undefined> = { ...ctx.env, HOME: ctx.home };
  const project = await settingsOf("project", ctx);
  const user = await settingsOf("user", ctx);
  const installs = [
    { target: "project" as const, ...project },
    { target: "user" as const, ...user },
  ].filter((s) => s.error !== null || ourGeminiHandlers(s.value).length > 0);
  if (installs.length === 0) return findings;
  const version = await detectVersion("gemini", ctx.env);
  findings.push(...versionFindings(GATE, version, { env: ctx.env, targets: [] }));
  const commands: InstalledCommand[] = [];
  for (const install of installs) {
    const fix = `todo-continuation install gemini --${install.target}`;
    if (install.error !== null) {
      findings.push({
        host: HOST,
        check: "settings",
        ok: false,
        message: install.error,
        fix: `fix ${install.path} by hand`,
      });
      continue;
    }
    const present = eventsWithOurHooks(install.value);
    const missing = [...new Set(GEMINI_HOOK_SPECS.map((s) => s.event))].filter(
      (e) => !present.has(e),
    );
    findings.push(
      missing.length === 0
        ? { host: HOST, check: "hooks", ok: true, message: `hooks installed in ${install.path}` }
        : {
            host: HOST,
            check: "hooks",
            ok: false,
            message: `${install.path} lacks our ${missing.join(", ")} hook(s)`,
            fix,
          },
    );
    const command = ourGeminiHandlers(install.value)[0]?.command ?? "";
    findings.push(await hookStartsFinding(HOST, command, install.path, fix, ctx));
    commands.push({ path: install.path, target: install.target, command });
    if (install.target === "project") {
      const rules = (await readJsonFile(trustedFoldersPath(env)).catch(() => null))?.value;
      const trusted =
        folderTrustOf(rules, ctx.cwd) === "trusted" || env.GEMINI_CLI_TRUST_WORKSPACE === "true";
      findings.push(
        trusted
          ? { host: HOST, check: "trust", ok: true, message: `${ctx.cwd} is a trusted folder` }
          : {
              host: HOST,
              check: "trust",
              ok: false,
              message: `${ctx.cwd} is not a trusted folder: Gemini CLI ignores its project hooks`,
              fix: 'start `gemini` in the project and choose "Trust folder" (or run /permissions)',
            },
      );
    }
  }
  const twice = await twiceFinding(HOST, commands, ctx);
  if (twice !== null) findings.push(twice);
  const stop = shortestStop(
    installs
      .filter((i) => i.error === null)
      .map((i) => ({ stopMs: installedAfterAgentTimeout(i.value), target: i.target })),
  );
  if (stop !== null) {
    const reinstall = `todo-continuation install gemini --${stop.target}`;
    findings.push(...verifyFindings(HOST, ctx, stop.stopMs, reinstall));
  }
  const u = toolFactsOf(user.value);
  const p = toolFactsOf(project.value);
  const hooksOff = u.hooksDisabled || p.hooksDisabled || u.ourHookDisabled || p.ourHookDisabled;
  findings.push(
    hooksOff
      ? {
          host: HOST,
          check: "enabled",
          ok: false,
          message:
            "hooksConfig switches our hooks off (enabled: false, or disabled lists todo-continuation)",
          fix: 'set "hooksConfig": {"enabled": true} and remove "todo-continuation" from hooksConfig.disabled',
        }
      : { host: HOST, check: "enabled", ok: true, message: "hooks are enabled" },
  );
  const tool = todoToolOf({
    model: p.model ?? u.model,
    taskTracker: p.taskTracker || u.taskTracker,
    writeTodosDisabled: p.writeTodosDisabled || u.writeTodosDisabled,
  });
  findings.push(
    tool.tool !== null
      ? { host: HOST, check: "todo-tool", ok: true, message: tool.why }
      : {
          host: HOST,
          check: "todo-tool",
          ok: false,
          message: tool.why,
          fix: 'add "experimental": {"taskTracker": true} to .gemini/settings.json',
        },
  );
  return findings;
};
