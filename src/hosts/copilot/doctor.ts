import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { DoctorCheck } from "../doctor.js";
import { hookStartsFinding } from "../hook-kit/doctor-command.js";
import { homeOf, notInstalledFinding } from "../hook-kit/doctor-files.js";
import { shortestStop, verifyFindings } from "../hook-kit/doctor-verify.js";
import { missingProgram, versionFindings } from "../hook-kit/doctor-version.js";
import { sqliteFallback } from "../hook-kit/sqlite-read.js";
import { HOST_HOOK_LIMITS } from "../hook-kit/timeout.js";
import { detectVersion } from "../hook-kit/version.js";
import { COPILOT_HOOKS_FILE, copilotHooksDir, isOurHooksFile, twiceInstalled } from "./install.js";

const HOST = "copilot";
const COPILOT_DEFAULT_MS = HOST_HOOK_LIMITS.copilot.defaultMs;
/**
 * The oldest release the end-to-end suite runs (docs/copilot.md): the first with a Linux build
 * since 1.0.10, from which a repository's hooks run in prompt mode too.
 */
export const MIN_COPILOT_VERSION = "1.0.11";

type OurHooks = Record<string, { bash: string; timeoutSec?: unknown }[]>;

/**
 * What a hooks file of ours holds: the command it runs (`"<node>" "<entry>" hook copilot ...
 * --event <e>`) and `agentStop`'s timeout in ms (Copilot's default when it writes none).
 */
function ourHooks(text: string): { command: string; stopMs: number } {
  const hooks = (JSON.parse(text) as { hooks: OurHooks }).hooks;
  const seconds = hooks.agentStop?.[0]?.timeoutSec;
  const stopMs = typeof seconds === "number" && seconds > 0 ? seconds * 1000 : COPILOT_DEFAULT_MS;
  return { command: Object.values(hooks)[0]?.[0]?.bash ?? "", stopMs };
}

const GATE = {
  host: HOST,
  name: "Copilot CLI",
  min: MIN_COPILOT_VERSION,
  minReason: "the oldest tested",
  missing: missingProgram("hooks are", "copilot", "npm install -g @github/copilot"),
  upgrade: "copilot update",
  // Measured on 1.0.40 and 1.0.48 (docs/copilot.md); 1.0.49 loads them once the folder is trusted.
  flaws: [
    {
      from: "1.0.40",
      fixedIn: "1.0.49",
      target: "project",
      liftedBy: "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true",
      message: `runs a repository's hooks in prompt mode (\`copilot -p\`) only with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true: such runs are never nudged`,
      fix: "copilot update (or install with --user, or set GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true)",
    },
  ],
};

/**
 * Copilot CLI: its version, and for each hooks file `install copilot` wrote:
 * the program its command runs is there, and the todo list can be read.
 */
export const copilotDoctor: DoctorCheck = async (ctx) => {
  const env = { ...ctx.env, HOME: homeOf(ctx.env, ctx.home) };
  const files: { target: "project" | "user"; path: string; text: string }[] = [];
  for (const target of ["project", "user"] as const) {
    const path = join(copilotHooksDir(target, ctx.cwd, env), COPILOT_HOOKS_FILE);
    const text = await readFile(path, "utf8").catch(() => null);
    if (text !== null && isOurHooksFile(text)) files.push({ target, path, text });
  }
  const version = await detectVersion("copilot", ctx.env);
  if (version === null && files.length === 0) return [];
  const say = (check: string, ok: boolean, message: string, fix: string) =>
    findings.push({ host: HOST, check, ok, message, ...(ok ? {} : { fix }) });
  const targets = files.map((f) => f.target);
  const findings = versionFindings(GATE, version, { env: ctx.env, targets });
  if (files.length === 0) {
    findings.push(notInstalledFinding(HOST, "hooks", "hooks file"));
    return findings;
  }
  if (files.length > 1) {
    const paths = files.map((f) => f.path);
    say("hooks", false, twiceInstalled(paths), "todo-continuation uninstall copilot --user");
  }
  const stops = files.map((f) => ({ ...f, ...ourHooks(f.text) }));
  for (const file of stops) {
    const fix = `todo-continuation install copilot --${file.target}`;
    findings.push(await hookStartsFinding(HOST, file.command, file.path, fix, ctx));
  }
  // The project's config and check, against the shortest agentStop timeout installed (it cuts first).
  const shortest = shortestStop(stops);
  const reinstall = `todo-continuation install copilot --${shortest?.target ?? "project"}`;
  if (shortest !== null) findings.push(...verifyFindings(HOST, ctx, shortest.stopMs, reinstall));
  // The package's own reader always reads it; SQLite itself is needed only for other formats.
  const fallback = sqliteFallback(ctx.env);
  say(
    "todos",
    true,
    `Copilot's todos table is read by this package's own SQLite file reader (UTF-8 rowid tables, the form Copilot writes); another form would be read with ${fallback ?? "nothing on this machine (neither Node 22.13+ nor the sqlite3 program), and then never nudged"}`,
    "",
  );
  return findings;
};
