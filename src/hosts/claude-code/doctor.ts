import { join } from "node:path";
import type { DoctorCheck, DoctorContext, DoctorFinding } from "../doctor.js";
import { hookStartsFinding } from "../hook-kit/doctor-command.js";
import { twiceFinding } from "../hook-kit/doctor-copies.js";
import { homeOf, notWritable, readJson } from "../hook-kit/doctor-files.js";
import { shortestStop, verifyFindings } from "../hook-kit/doctor-verify.js";
import { type VersionGate, versionFinding } from "../hook-kit/doctor-version.js";
import { detectVersion, type Version } from "../hook-kit/version.js";
import { claudeConfigDir } from "./config-dir.js";
import {
  hookSpecsFor,
  installedCommand,
  installedStopTimeout,
  MIN_CLAUDE_CODE_VERSION,
} from "./settings.js";
import { hookStoreRoot } from "./store-location.js";

const HOST = "claude-code";

type Target = "project" | "local" | "user";

interface Install {
  target: Target;
  path: string;
  command: string;
  /** Events holding a handler of ours. */
  events: string[];
  /** Our Stop handler's timeout in seconds; null when it names none. */
  stopTimeout: number | null;
}

function settingsFiles(ctx: DoctorContext): { target: Target; path: string }[] {
  const config = claudeConfigDir({ ...ctx.env, HOME: homeOf(ctx.env, ctx.home) });
  return [
    { target: "project", path: join(ctx.cwd, ".claude", "settings.json") },
    { target: "local", path: join(ctx.cwd, ".claude", "settings.local.json") },
    { target: "user", path: join(config, "settings.json") },
  ];
}

/** Events whose groups hold the given command. */
function eventsWith(settings: unknown, command: string): string[] {
  const hooks = (settings as { hooks?: Record<string, unknown> }).hooks ?? {};
  return Object.entries(hooks)
    .filter(
      ([, groups]) =>
        Array.isArray(groups) &&
        groups.some(
          (g) =>
            Array.isArray(g?.hooks) &&
            g.hooks.some((h: { command?: unknown }) => h?.command === command),
        ),
    )
    .map(([event]) => event);
}

const VERSION_GATE: VersionGate = {
  host: HOST,
  name: "Claude Code",
  min: MIN_CLAUDE_CODE_VERSION,
  minReason: "the oldest supported",
  missing: {
    message: "hooks are installed, but no `claude` on PATH answers `claude --version`",
    fix: "put Claude Code on PATH (npm install -g @anthropic-ai/claude-code)",
  },
  upgrade: "claude update",
};

function versionFindings(version: Version | null): DoctorFinding[] {
  return [versionFinding(VERSION_GATE, version)];
}

function eventFindings(install: Install, version: Version | null): DoctorFinding[] {
  const fix = `todo-continuation install claude-code --${install.target}`;
  const { specs, left } = hookSpecsFor(version);
  // With the version unknown (reported already), an event it may not know is no finding of its own.
  const unknown = version === null ? [] : left.filter((s) => install.events.includes(s.event));
  const missing = specs.filter((s) => !install.events.includes(s.event));
  const out: DoctorFinding[] = [];
  for (const spec of unknown) {
    out.push({
      host: HOST,
      check: "hooks",
      ok: false,
      message:
        `${install.path} names ${spec.event}, which needs Claude Code ${spec.since} or newer: ` +
        "an older Claude Code loads no hooks and no permission rules from that file",
      fix,
    });
  }
  if (missing.length > 0) {
    out.push({
      host: HOST,
      check: "hooks",
      ok: false,
      message: `${install.path} lacks the ${missing.map((s) => s.event).join(", ")} hook(s)`,
      fix,
    });
  }
  if (out.length === 0) {
    out.push({
      host: HOST,
      check: "hooks",
      ok: true,
      message: `${install.path}: ${install.events.join(", ")}`,
    });
  }
  return out;
}

async function commandFindings(install: Install, ctx: DoctorContext): Promise<DoctorFinding[]> {
  const portable = install.command.includes("$CLAUDE_PROJECT_DIR");
  const fix = portable
    ? "npm install (with todo-continuation in the project's devDependencies)"
    : `todo-continuation install claude-code --${install.target}`;
  return [await hookStartsFinding(HOST, install.command, install.path, fix, ctx)];
}

/**
 * Claude Code: the version on PATH against the supported minimum, and for
 * every settings file holding our hooks: events the version knows, the hook
 * command's script present and starting, and the project store writable.
 */
export const claudeCodeDoctor: DoctorCheck = async (ctx) => {
  const installs: Install[] = [];
  const findings: DoctorFinding[] = [];
  for (const { target, path } of settingsFiles(ctx)) {
    const read = await readJson(path);
    if (read.kind === "invalid") {
      findings.push({
        host: HOST,
        check: "settings",
        ok: false,
        message: `${path} is not valid JSON (${read.reason.slice(0, 200)}); Claude Code ignores it`,
        fix: `fix the JSON in ${path}`,
      });
      continue;
    }
    if (read.kind !== "ok") continue;
    const command = installedCommand(read.value);
    if (command !== null) {
      installs.push({
        target,
        path,
        command,
        events: eventsWith(read.value, command),
        stopTimeout: installedStopTimeout(read.value),
      });
    }
  }
  const version = await detectVersion("claude", ctx.env);
  if (version === null && installs.length === 0 && findings.length === 0) return [];
  if (version !== null || installs.length > 0) findings.unshift(...versionFindings(version));
  if (installs.length === 0) {
    findings.push({
      host: HOST,
      check: "hooks",
      ok: true,
      message:
        "no todo-continuation hooks installed (todo-continuation install claude-code adds them)",
      notInstalled: true,
    });
    return findings;
  }
  for (const install of installs) {
    findings.push(...eventFindings(install, version));
    findings.push(...(await commandFindings(install, ctx)));
  }
  const twice = await twiceFinding(HOST, installs, ctx);
  if (twice !== null) findings.push(twice);
  // The Stop hook that waits least decides whether a project check fits in it.
  const shortest = shortestStop(
    installs.map((i) => ({
      stopMs: i.stopTimeout === null ? null : i.stopTimeout * 1000,
      target: i.target,
    })),
  );
  if (shortest !== null) {
    const reinstall = `todo-continuation install claude-code --${shortest.target}`;
    findings.push(...verifyFindings(HOST, ctx, shortest.stopMs, reinstall));
  }
  const root = hookStoreRoot({ env: ctx.env, cwd: ctx.cwd });
  const problem = await notWritable(root);
  findings.push(
    problem === null
      ? { host: HOST, check: "store", ok: true, message: `store ${root} is writable` }
      : {
          host: HOST,
          check: "store",
          ok: false,
          message: `the hooks cannot write their store: ${problem}`,
          fix: `make ${root} writable, or set TODO_CONTINUATION_DIR to a writable folder`,
        },
  );
  return findings;
};
