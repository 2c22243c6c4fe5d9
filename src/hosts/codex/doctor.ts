import { execFile } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { delimiter, isAbsolute, join, relative, sep } from "node:path";
import type { DoctorCheck, DoctorContext, DoctorFinding } from "../doctor.js";
import { hookStartsFinding } from "../hook-kit/doctor-command.js";
import { shortestStop, verifyFindings } from "../hook-kit/doctor-verify.js";
import {
  CODEX_HOOK_TIMEOUT_SECONDS,
  installedCommand,
  installedStopTimeout,
  installHooksBlock,
  projectTrusted,
  readToml,
  trustedHashes,
} from "./config-block.js";
import { type ConfigLayer, effectiveFindings } from "./effective-config.js";
import { codexHome, namesTarget, twiceInstalled } from "./install.js";
import { codexProjectDir } from "./store-location.js";

/** The Codex CLI versions this integration was measured on (hook payloads, trust hashes). */
export const CODEX_SUPPORTED = { min: "0.169.0", tested: "0.169.0" } as const;

const HOST = "codex";

/** Where Codex reads its system-wide config on Unix. */
const SYSTEM_CONFIG = "/etc/codex/config.toml";

function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map((n) => Number.parseInt(n, 10) || 0);
  const pb = b.split(".").map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** `codex --version` of the first `codex` on PATH: the version, or null when there is none. */
export async function codexVersionOnPath(
  env: Record<string, string | undefined>,
): Promise<string | null> {
  const dirs = (env.PATH ?? "").split(delimiter).filter((d) => d !== "");
  const bin = dirs.map((d) => join(d, "codex")).find((p) => existsSync(p));
  if (bin === undefined) return null;
  const output = await new Promise<string>((resolve) => {
    execFile(bin, ["--version"], { env: env as NodeJS.ProcessEnv, timeout: 15_000 }, (_e, stdout) =>
      resolve(String(stdout)),
    );
  });
  return /(\d+\.\d+\.\d+)/.exec(output)?.[1] ?? "unknown";
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return null;
  }
}

interface Located {
  label: "user" | "project";
  path: string;
  text: string;
}

function findingsFor(
  config: Located,
  userPath: string,
  userText: string,
  project: string,
): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const fix = `todo-continuation install codex --${config.label}`;
  const command = installedCommand(config.text);
  if (command === null) return out;
  out.push({ host: HOST, check: "hooks", ok: true, message: `hooks installed in ${config.path}` });
  let userDoc: Record<string, unknown>;
  let expected: ReturnType<typeof installHooksBlock>;
  try {
    userDoc = readToml(userText, userPath);
    // Trust entries hash the timeouts as installed (the Stop one follows the project's check).
    expected = installHooksBlock(
      config.text,
      config.path,
      command,
      undefined,
      installedStopTimeout(config.text) ?? CODEX_HOOK_TIMEOUT_SECONDS,
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    out.push({ host: HOST, check: "config", ok: false, message, fix });
    return out;
  }
  const trusted = trustedHashes(userDoc);
  const untrusted = expected.trust.filter((entry) => trusted.get(entry.key) !== entry.hash);
  out.push(
    untrusted.length === 0
      ? {
          host: HOST,
          check: "trust",
          ok: true,
          message: `all ${expected.trust.length} hooks trusted in ${userPath}`,
        }
      : {
          host: HOST,
          check: "trust",
          ok: false,
          message: `${untrusted.map((e) => e.event).join(", ")} not trusted in ${userPath} (the hooks moved or changed): Codex skips them`,
          fix,
        },
  );
  if (config.label === "project" && !projectTrusted(userDoc, project)) {
    out.push({
      host: HOST,
      check: "project-trust",
      ok: false,
      message: `Codex reads ${config.path} only once ${project} is trusted`,
      fix: `start codex in ${project} and accept its trust prompt, or add [projects.${JSON.stringify(project)}] trust_level = "trusted" to ${userPath}`,
    });
  }
  return out;
}

export interface CodexDoctorOptions {
  /** The installed Codex version, or null when none is found. Default: `codex --version` on PATH. */
  version?: (env: Record<string, string | undefined>) => Promise<string | null>;
  /** Codex's system-wide config. Default: `/etc/codex/config.toml`. */
  systemConfig?: string;
}

/** The folders from the project root down to `cwd`, root first. */
function foldersDown(root: string, cwd: string): string[] {
  const rel = relative(root, cwd);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return [root];
  const out = [root];
  let dir = root;
  for (const part of rel.split(sep)) {
    dir = join(dir, part);
    out.push(dir);
  }
  return out;
}

/**
 * Every config layer Codex reads for `cwd`, lowest precedence first, or a
 * finding naming the file that does not parse (Codex refuses it too).
 */
async function configLayers(
  systemPath: string,
  userPath: string,
  userText: string,
  project: string,
  cwd: string,
): Promise<ConfigLayer[] | DoctorFinding> {
  const layers: ConfigLayer[] = [];
  try {
    const systemText = await readText(systemPath);
    if (systemText !== null) {
      layers.push({
        kind: "system",
        path: systemPath,
        doc: readToml(systemText, systemPath),
        active: true,
      });
    }
    const userDoc = readToml(userText, userPath);
    layers.push({ kind: "user", path: userPath, doc: userDoc, active: true });
    const trusted = projectTrusted(userDoc, project);
    for (const folder of foldersDown(project, cwd)) {
      const path = join(folder, ".codex", "config.toml");
      if (path === userPath) continue;
      const text = await readText(path);
      if (text === null) continue;
      layers.push({ kind: "project", path, doc: readToml(text, path), active: trusted });
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { host: HOST, check: "config", ok: false, message, fix: "fix the file's TOML syntax" };
  }
  return layers;
}

/** The doctor's Codex check: version, hooks present and trusted, command resolvable. */
export function createCodexDoctor(options: CodexDoctorOptions = {}): DoctorCheck {
  return async (context: DoctorContext): Promise<DoctorFinding[]> => {
    const codexHomeDir = codexHome({ ...context.env, HOME: context.home });
    // Keys name folders as the installer did: symlinks resolved.
    const canonical = (p: string) => (existsSync(p) ? realpathSync(p) : p);
    const userPath = join(canonical(codexHomeDir), "config.toml");
    const userText = (await readText(userPath)) ?? "";
    const project = canonical(codexProjectDir(context.cwd));
    const projectPath = join(project, ".codex", "config.toml");
    const configs: Located[] = [];
    if (installedCommand(userText) !== null)
      configs.push({ label: "user", path: userPath, text: userText });
    const projectText = await readText(projectPath);
    if (projectText !== null && installedCommand(projectText) !== null) {
      configs.push({ label: "project", path: projectPath, text: projectText });
    }
    const version = await (options.version ?? codexVersionOnPath)(context.env);
    if (version === null && configs.length === 0) return [];
    const out: DoctorFinding[] = [];
    if (version === null) {
      out.push({
        host: HOST,
        check: "installed",
        ok: false,
        message: "hooks are installed but no codex is on PATH",
        fix: `npm install -g @openai/codex@${CODEX_SUPPORTED.tested}`,
      });
    } else {
      const supported = version !== "unknown" && compareVersions(version, CODEX_SUPPORTED.min) >= 0;
      out.push({
        host: HOST,
        check: "version",
        ok: supported,
        message: supported
          ? `codex ${version} (tested on ${CODEX_SUPPORTED.tested})`
          : `codex ${version} is older than ${CODEX_SUPPORTED.min}, the first version with the hooks this integration uses`,
        ...(supported ? {} : { fix: `npm install -g @openai/codex@${CODEX_SUPPORTED.tested}` }),
      });
    }
    if (configs.length === 0) {
      out.push({
        host: HOST,
        check: "hooks",
        ok: false,
        message: `no todo-continuation hooks in ${userPath} or ${projectPath}`,
        fix: "todo-continuation install codex",
        notInstalled: true,
      });
    }
    for (const config of configs) {
      out.push(...findingsFor(config, userPath, userText, project));
      const command = installedCommand(config.text);
      const fix = `todo-continuation install codex --${config.label}`;
      if (command !== null)
        out.push(await hookStartsFinding(HOST, command, config.path, fix, context));
    }
    if (configs.length === 2) {
      const commands = configs.map((c) => installedCommand(c.text) ?? "");
      const ok = commands.every(namesTarget);
      const message = twiceInstalled(
        configs.map((c) => c.path),
        commands,
      );
      const fix =
        "todo-continuation install codex --user, and install codex --project (or keep one)";
      out.push({ host: HOST, check: "twice", ok, message, ...(ok ? {} : { fix }) });
    }
    const stop = shortestStop(
      configs.map((c) => {
        const seconds = installedStopTimeout(c.text);
        return { stopMs: seconds === null ? null : seconds * 1000, label: c.label };
      }),
    );
    if (stop !== null) {
      const reinstall = `todo-continuation install codex --${stop.label}`;
      out.push(...verifyFindings(HOST, context, stop.stopMs, reinstall));
    }
    if (configs.length > 0) {
      const cwd = canonical(context.cwd);
      const layers = await configLayers(
        options.systemConfig ?? SYSTEM_CONFIG,
        userPath,
        userText,
        project,
        cwd,
      );
      if (Array.isArray(layers)) out.push(...effectiveFindings(layers));
      else out.push(layers);
    }
    return out;
  };
}

export const codexDoctor: DoctorCheck = createCodexDoctor();
