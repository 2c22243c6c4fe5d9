import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { DoctorCheck, DoctorContext, DoctorFinding } from "../doctor.js";
import { homeOf, isFile, readJson } from "../doctor-files.js";
import { loadProblem } from "../doctor-load.js";
import { compareVersions, detectVersion, formatVersion, versionOf } from "../version.js";
import { EXTENSION_FILE, isOurPiEntry, piAgentDir } from "./settings.js";

const HOST = "pi";

/** The oldest pi the extension supports (the oldest the end-to-end suite runs). */
export const MIN_PI_VERSION = "0.73.1";

interface Entry {
  target: "project" | "user";
  settingsPath: string;
  entry: string;
  /** The file pi loads for it: resolved against the settings file's folder, `~` expanded. */
  file: string;
}

function expand(entry: string, home: string, base: string): string {
  const path = entry.replace(/^[+-]/, "");
  if (path === "~" || path.startsWith("~/")) return join(home, path.slice(1));
  return resolve(base, path);
}

/** This package's own extension file: a checkout's folder need not be called todo-continuation. */
const OWN_EXTENSION = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  ...EXTENSION_FILE,
);

async function entries(ctx: DoctorContext): Promise<{ found: Entry[]; problems: DoctorFinding[] }> {
  const home = homeOf(ctx.env, ctx.home);
  const files = [
    { target: "project" as const, path: join(ctx.cwd, ".pi", "settings.json") },
    {
      target: "user" as const,
      path: join(piAgentDir({ ...ctx.env, HOME: home }), "settings.json"),
    },
  ];
  const found: Entry[] = [];
  const problems: DoctorFinding[] = [];
  for (const { target, path } of files) {
    const read = await readJson(path);
    if (read.kind === "invalid") {
      problems.push({
        host: HOST,
        check: "settings",
        ok: false,
        message: `${path} is not valid JSON (${read.reason.slice(0, 200)})`,
        fix: `fix the JSON in ${path}`,
      });
      continue;
    }
    if (read.kind !== "ok") continue;
    const list = (read.value as { extensions?: unknown }).extensions;
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (!isOurPiEntry(entry, [OWN_EXTENSION])) continue;
      found.push({
        target,
        settingsPath: path,
        entry: entry as string,
        file: expand(entry as string, home, dirname(path)),
      });
    }
  }
  return { found, problems };
}

/**
 * pi: its version against the supported minimum, and every `extensions`
 * entry of ours in its settings: the file pi resolves it to present and
 * loadable.
 */
export const piDoctor: DoctorCheck = async (ctx) => {
  const { found, problems } = await entries(ctx);
  const version = await detectVersion("pi", ctx.env);
  if (version === null && found.length === 0 && problems.length === 0) return [];
  const findings: DoctorFinding[] = [];
  if (version === null) {
    findings.push({
      host: HOST,
      check: "version",
      ok: false,
      message:
        "the extension is installed, but no `pi` on PATH answers `pi --version` (pi 1.x needs Node 22)",
      fix: "put pi on PATH (npm install -g @earendil-works/pi-coding-agent), on Node 22 for pi 1.x",
    });
  } else if (compareVersions(version, versionOf(MIN_PI_VERSION)) < 0) {
    findings.push({
      host: HOST,
      check: "version",
      ok: false,
      message: `pi ${formatVersion(version)} is older than ${MIN_PI_VERSION}, the oldest supported`,
      fix: "npm install -g @earendil-works/pi-coding-agent",
    });
  } else {
    findings.push({
      host: HOST,
      check: "version",
      ok: true,
      message: `pi ${formatVersion(version)} (needs ${MIN_PI_VERSION} or newer)`,
    });
  }
  findings.push(...problems);
  if (found.length === 0) {
    findings.push({
      host: HOST,
      check: "extension",
      ok: true,
      message:
        "no todo-continuation extension in pi's settings (todo-continuation install pi adds it)",
    });
    return findings;
  }
  for (const entry of found) {
    const fix = `todo-continuation install pi --${entry.target}`;
    if (!(await isFile(entry.file))) {
      findings.push({
        host: HOST,
        check: "extension",
        ok: false,
        message:
          `${entry.settingsPath} lists ${JSON.stringify(entry.entry)}; pi resolves it to ` +
          `${entry.file}, which does not exist, and runs without todo tools`,
        fix,
      });
      continue;
    }
    const problem = await loadProblem(entry.file, ctx.env, ctx.cwd);
    findings.push(
      problem === null
        ? {
            host: HOST,
            check: "loadable",
            ok: true,
            message: `${entry.settingsPath} loads ${entry.file}`,
          }
        : {
            host: HOST,
            check: "loadable",
            ok: false,
            message: `${entry.file} does not load: ${problem}`,
            fix,
          },
    );
  }
  return findings;
};
