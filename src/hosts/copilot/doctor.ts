import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import type { DoctorCheck, DoctorFinding } from "../doctor.js";
import { homeOf, isFile } from "../hook-kit/doctor-files.js";
import { compareVersions, detectVersion, formatVersion, versionOf } from "../hook-kit/version.js";
import { COPILOT_HOOKS_FILE, copilotHooksDir, isOurHooksFile } from "./install.js";

const HOST = "copilot";
/** The release whose hooks and todo table were measured (docs/copilot.md). */
export const MIN_COPILOT_VERSION = "1.0.102";

/** Whether this machine can read Copilot's todos table: `node:sqlite`, or the sqlite3 program. */
function sqliteReader(env: Record<string, string | undefined>): string | null {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 13)) return "node:sqlite";
  try {
    execFileSync("sqlite3", ["-version"], { env, stdio: "ignore", timeout: 5_000 });
    return "the sqlite3 program";
  } catch {
    return null;
  }
}

/**
 * Copilot CLI: its version, and for each hooks file `install copilot` wrote:
 * the program its command runs is there, and the todo list can be read.
 */
export const copilotDoctor: DoctorCheck = async (ctx) => {
  const env = { ...ctx.env, HOME: homeOf(ctx.env, ctx.home) };
  const files: { target: "project" | "user"; path: string; text: string }[] = [];
  for (const target of ["project", "user"] as const) {
    const path = `${copilotHooksDir(target, ctx.cwd, env)}/${COPILOT_HOOKS_FILE}`;
    const text = await readFile(path, "utf8").catch(() => null);
    if (text !== null && isOurHooksFile(text)) files.push({ target, path, text });
  }
  const version = await detectVersion("copilot", ctx.env);
  if (version === null && files.length === 0) return [];
  const findings: DoctorFinding[] = [];
  const min = versionOf(MIN_COPILOT_VERSION);
  findings.push(
    version === null
      ? {
          host: HOST,
          check: "version",
          ok: false,
          message: "the hooks are installed, but no `copilot` on PATH answers `copilot --version`",
          fix: "npm install -g @github/copilot",
        }
      : compareVersions(version, min) < 0
        ? {
            host: HOST,
            check: "version",
            ok: false,
            message: `Copilot CLI ${formatVersion(version)} is older than ${MIN_COPILOT_VERSION}, the oldest tested`,
            fix: "copilot update",
          }
        : {
            host: HOST,
            check: "version",
            ok: true,
            message: `Copilot CLI ${formatVersion(version)} (needs ${MIN_COPILOT_VERSION} or newer)`,
          },
  );
  if (files.length === 0) {
    findings.push({
      host: HOST,
      check: "hooks",
      ok: true,
      message: "no todo-continuation hooks installed (todo-continuation install copilot adds them)",
      notInstalled: true,
    });
    return findings;
  }
  for (const file of files) {
    const fix = `todo-continuation install copilot --${file.target}`;
    const hooks = (JSON.parse(file.text) as { hooks: Record<string, { bash: string }[]> }).hooks;
    const bash = Object.values(hooks)[0]?.[0]?.bash ?? "";
    // The command is `"<node>" "<entry>" hook copilot ...`, as install wrote it.
    const quoted = [...bash.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) =>
      (m[1] as string).replace(/\\(.)/g, "$1"),
    );
    const missing: string[] = [];
    for (const path of quoted.slice(0, 2)) if (!(await isFile(path))) missing.push(path);
    findings.push(
      missing.length === 0
        ? {
            host: HOST,
            check: "hooks",
            ok: true,
            message: `${file.path} runs ${quoted.slice(0, 2).join(" ")}`,
          }
        : {
            host: HOST,
            check: "hooks",
            ok: false,
            message: `${file.path} runs ${missing.join(", ")}, which is not there`,
            fix,
          },
    );
  }
  const reader = sqliteReader(ctx.env);
  findings.push(
    reader === null
      ? {
          host: HOST,
          check: "todos",
          ok: false,
          message:
            "Copilot's todo list is a SQLite table, and this machine has neither Node 22.13+ (node:sqlite) nor the sqlite3 program: nothing is ever nudged",
          fix: "use Node 22.13 or newer, or install sqlite3",
        }
      : {
          host: HOST,
          check: "todos",
          ok: true,
          message: `Copilot's todos table is read with ${reader}`,
        },
  );
  return findings;
};
