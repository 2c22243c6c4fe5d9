import { existsSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { DoctorCheck, DoctorContext, DoctorFinding } from "../doctor.js";
import { homeOf, isFile, readJson } from "../hook-kit/doctor-files.js";
import { loadProblem } from "../hook-kit/doctor-load.js";
import { projectConfigFindings } from "../hook-kit/doctor-verify.js";
import { versionFinding } from "../hook-kit/doctor-version.js";
import { compareVersions, detectVersion, versionOf } from "../hook-kit/version.js";
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

/** The real file an entry loads, or its path when it cannot be resolved. */
function realFile(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/**
 * Two copies of the package listed (the settings files' entries resolve to two files): pi loads
 * both. A copy from this version on registers nothing when another acts (`copies.js` beside its
 * extension); an older one registers `todo_write` regardless, and pi then refuses to start.
 */
function copiesFinding(found: readonly Entry[]): DoctorFinding | null {
  const files = [...new Set(found.map((entry) => realFile(entry.file)))];
  if (files.length < 2) return null;
  const old = files.filter((file) => !existsSync(join(dirname(file), "copies.js")));
  const listed = files.join(" and ");
  if (old.length === 0) {
    return {
      host: HOST,
      check: "twice",
      ok: true,
      message: `pi loads two copies of the extension (${listed}): the first it loads acts, the other registers nothing`,
    };
  }
  return {
    host: HOST,
    check: "twice",
    ok: false,
    message: `pi loads two copies of the extension (${listed}), and ${old.join(" and ")} is from a version that registers its todo tool regardless: pi refuses to start ("Tool "todo_write" conflicts")`,
    fix: "install one version for both (todo-continuation install pi in each), or remove one (todo-continuation uninstall pi --user)",
  };
}

/** The first pi that loads a project's `.pi/settings.json` only in a trusted project. */
const FIRST_TRUSTING_PI = versionOf("1.0.0");

/**
 * pi 1.x's decision for a folder, as pi makes it: the nearest entry for the
 * folder (its real path) or one of its parents in `<agent dir>/trust.json`.
 */
async function trustOf(
  cwd: string,
  agentDir: string,
): Promise<{ decision: boolean | null; path: string | null; store: string; broken?: string }> {
  const store = join(agentDir, "trust.json");
  const read = await readJson(store);
  if (read.kind === "invalid") return { decision: null, path: null, store, broken: read.reason };
  const data = read.kind === "ok" ? (read.value as Record<string, unknown>) : {};
  let folder: string;
  try {
    folder = realpathSync(cwd);
  } catch {
    folder = resolve(cwd);
  }
  for (;;) {
    const value = data[folder];
    if (value === true || value === false) return { decision: value, path: folder, store };
    const parent = dirname(folder);
    if (parent === folder) return { decision: null, path: null, store };
    folder = parent;
  }
}

function trustFinding(trust: Awaited<ReturnType<typeof trustOf>>, cwd: string): DoctorFinding {
  const fix = "run /trust in pi in this folder once (or start pi with --approve)";
  if (trust.broken !== undefined) {
    return {
      host: HOST,
      check: "trust",
      ok: false,
      message: `${trust.store} is not valid JSON (${trust.broken.slice(0, 200)}); pi 1.x cannot tell whether it trusts ${cwd}`,
      fix: `fix the JSON in ${trust.store}`,
    };
  }
  if (trust.decision === true) {
    return {
      host: HOST,
      check: "trust",
      ok: true,
      message: `pi trusts ${trust.path} (${trust.store}), so it loads this project's .pi/settings.json`,
    };
  }
  return {
    host: HOST,
    check: "trust",
    ok: false,
    message:
      trust.decision === false
        ? `pi is told not to trust ${trust.path} (${trust.store}): it ignores this project's .pi/settings.json and runs without todo tools`
        : `pi has not been told to trust ${cwd} yet: until then \`pi -p\` ignores this project's .pi/settings.json (an interactive pi asks first)`,
    fix,
  };
}

/**
 * pi: its version against the supported minimum, every `extensions` entry
 * of ours in its settings (the file pi resolves it to present and loadable),
 * and for a project entry under pi 1.x, whether pi trusts the project.
 */
export const piDoctor: DoctorCheck = async (ctx) => {
  const { found, problems } = await entries(ctx);
  const version = await detectVersion("pi", ctx.env);
  if (version === null && found.length === 0 && problems.length === 0) return [];
  const findings: DoctorFinding[] = [];
  findings.push(
    versionFinding(
      {
        host: HOST,
        name: "pi",
        min: MIN_PI_VERSION,
        minReason: "the oldest supported",
        missing: {
          message:
            "the extension is installed, but no `pi` on PATH answers `pi --version` (pi 1.x needs Node 22)",
          fix: "put pi on PATH (npm install -g @earendil-works/pi-coding-agent), on Node 22 for pi 1.x",
        },
        upgrade: "npm install -g @earendil-works/pi-coding-agent",
      },
      version,
    ),
  );
  findings.push(...problems);
  if (found.length === 0) {
    findings.push({
      host: HOST,
      check: "extension",
      ok: true,
      message:
        "no todo-continuation extension in pi's settings (todo-continuation install pi adds it)",
      notInstalled: true,
    });
    return findings;
  }
  findings.push(...projectConfigFindings(HOST, ctx, "the extension never nudges"));
  // pi 1.x reads a project's settings (and so our entry) only in a trusted project.
  if (
    version !== null &&
    compareVersions(version, FIRST_TRUSTING_PI) >= 0 &&
    found.some((entry) => entry.target === "project")
  ) {
    const home = homeOf(ctx.env, ctx.home);
    findings.push(
      trustFinding(await trustOf(ctx.cwd, piAgentDir({ ...ctx.env, HOME: home })), ctx.cwd),
    );
  }
  const twice = copiesFinding(found);
  if (twice !== null) findings.push(twice);
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
