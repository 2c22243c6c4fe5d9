import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { DoctorCheck, DoctorFinding } from "../doctor.js";
import { hookStartsFinding } from "../hook-kit/doctor-command.js";
import { homeOf, notInstalledFinding } from "../hook-kit/doctor-files.js";
import { shortestStop, verifyFindings } from "../hook-kit/doctor-verify.js";
import { versionFinding } from "../hook-kit/doctor-version.js";
import { sqliteFallback } from "../hook-kit/sqlite-read.js";
import { HOST_HOOK_LIMITS } from "../hook-kit/timeout.js";
import { detectVersion } from "../hook-kit/version.js";
import { COPILOT_HOOKS_FILE, copilotHooksDir, isOurHooksFile, twiceInstalled } from "./install.js";

const HOST = "copilot";
const COPILOT_DEFAULT_MS = HOST_HOOK_LIMITS.copilot.defaultMs;
/** The release whose hooks and todo table were measured (docs/copilot.md). */
export const MIN_COPILOT_VERSION = "1.0.102";

type OurHooks = Record<string, { bash: string; timeoutSec?: unknown }[]>;

/** The command a hooks file of ours runs (`"<node>" "<entry>" hook copilot ... --event <e>`). */
function commandOf(text: string): string {
  return Object.values((JSON.parse(text) as { hooks: OurHooks }).hooks)[0]?.[0]?.bash ?? "";
}

/** `agentStop`'s timeout in a hooks file of ours, in ms; null when it writes none. */
function stopTimeoutMs(text: string): number | null {
  const seconds = (JSON.parse(text) as { hooks: OurHooks }).hooks.agentStop?.[0]?.timeoutSec;
  return typeof seconds === "number" && seconds > 0 ? seconds * 1000 : null;
}

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
  const findings: DoctorFinding[] = [
    versionFinding(
      {
        host: HOST,
        name: "Copilot CLI",
        min: MIN_COPILOT_VERSION,
        minReason: "the oldest tested",
        missing: {
          message: "the hooks are installed, but no `copilot` on PATH answers `copilot --version`",
          fix: "npm install -g @github/copilot",
        },
        upgrade: "copilot update",
      },
      version,
    ),
  ];
  if (files.length === 0) {
    findings.push(notInstalledFinding(HOST, "hooks", "hooks file"));
    return findings;
  }
  if (files.length > 1) {
    const paths = files.map((f) => f.path);
    say("hooks", false, twiceInstalled(paths), "todo-continuation uninstall copilot --user");
  }
  for (const file of files) {
    const fix = `todo-continuation install copilot --${file.target}`;
    findings.push(await hookStartsFinding(HOST, commandOf(file.text), file.path, fix, ctx));
  }
  // The project's config and check, against the shortest agentStop timeout installed (it cuts first).
  const stops = files.map((f) => ({ ...f, stopMs: stopTimeoutMs(f.text) ?? COPILOT_DEFAULT_MS }));
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
