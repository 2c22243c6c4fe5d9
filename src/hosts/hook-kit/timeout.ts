import { effectiveConfig } from "../../config/effective.js";
import { findProjectConfig, type LoadedConfig } from "../../config/load.js";

/**
 * How long a hook host waits for our Stop hook, and how long that hook may
 * need once a project's `verify` check runs inside it.
 *
 * Measured on the pinned releases (read from their code, then confirmed by a
 * run; see docs/verify.md, "Hook time limits"):
 * - Claude Code 2.1.332: `timeout` in seconds per handler; default 600 s; a
 *   configured value is capped at 2^31-1 ms (Bun's timer limit). At the limit
 *   the hook is aborted and the stop goes ahead (a timed-out Stop hook never
 *   blocks).
 * - Codex 0.169.0: `timeout` in seconds; default 600 s, at least 1 s, no upper
 *   cap for Stop (only SessionEnd and Interrupt are clamped to 3 s). At the
 *   limit the hook's process is killed ("hook timed out after N s") and the
 *   stop goes ahead.
 * - Gemini CLI 0.61.0: `timeout` in milliseconds; default 60 s; no cap of its
 *   own, but Node's timers take at most 2^31-1 ms (a larger value fires at
 *   once). At the limit the hook gets SIGTERM and the turn ends as if it had
 *   answered nothing.
 */

export type HookHost = "claude-code" | "codex" | "gemini" | "qwen" | "copilot";

export interface HostHookLimit {
  /** What the host calls itself. */
  name: string;
  /** The unit of its `timeout` field. */
  unit: "s" | "ms";
  /** Its wait when no `timeout` is written. */
  defaultMs: number;
  /** The longest wait it can honour; null when none below any value we write. */
  maxMs: number | null;
}

/** 2^31-1 ms: the longest timer Node and Bun keep (about 24.8 days). */
const TIMER_MAX_MS = 2_147_483_647;

export const HOST_HOOK_LIMITS: Readonly<Record<HookHost, HostHookLimit>> = {
  "claude-code": { name: "Claude Code", unit: "s", defaultMs: 600_000, maxMs: TIMER_MAX_MS },
  codex: { name: "Codex", unit: "s", defaultMs: 600_000, maxMs: null },
  gemini: { name: "Gemini CLI", unit: "ms", defaultMs: 60_000, maxMs: TIMER_MAX_MS },
  // Seconds, but Qwen reads a command hook's value of 1000 or more as milliseconds.
  qwen: { name: "Qwen Code", unit: "s", defaultMs: 60_000, maxMs: TIMER_MAX_MS },
  // `timeoutSec` of each hook in its hooks file; ours always writes one (a Node program: timers cap it).
  copilot: { name: "Copilot CLI", unit: "s", defaultMs: 30_000, maxMs: TIMER_MAX_MS },
};

/** What every hook of ours gets without a check to run: ours answer in well under a second. */
export const BASE_HOOK_TIMEOUT_MS = 30_000;

/** How long past its own limit a check may take to die (SIGTERM, then SIGKILL a second later). */
const KILL_GRACE_MS = 1_000;
/** How long a session waits on another session's run of the same check beyond its limit. */
const LOCK_GRACE_MS = 10_000;

/**
 * The Stop hook timeout that covers a check of `timeoutMs`, in the worst
 * case: waiting for another session's run of the check (its limit plus the
 * lock's grace), then running it (its limit plus the kill grace), plus the
 * hook's own time. Without a check, the base timeout.
 */
export function stopHookTimeoutMs(verifyTimeoutMs: number | null): number {
  if (verifyTimeoutMs === null) return BASE_HOOK_TIMEOUT_MS;
  return 2 * verifyTimeoutMs + LOCK_GRACE_MS + KILL_GRACE_MS + BASE_HOOK_TIMEOUT_MS;
}

/** The value to write in the host's unit (whole seconds round up). */
export function inHostUnit(host: HookHost, ms: number): number {
  const seconds = Math.ceil(ms / 1000);
  if (host === "qwen" && seconds >= 1000) return ms;
  return HOST_HOOK_LIMITS[host].unit === "s" ? seconds : ms;
}

function formatWait(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * Throws, naming the host's limit, when the Stop hook a check of
 * `verifyTimeoutMs` needs is longer than the host can wait.
 */
export function checkHostCanWait(host: HookHost, verifyTimeoutMs: number | null, file?: string) {
  const limit = HOST_HOOK_LIMITS[host];
  const needed = stopHookTimeoutMs(verifyTimeoutMs);
  if (limit.maxMs !== null && needed > limit.maxMs) {
    throw new Error(
      `verify.timeoutMs ${verifyTimeoutMs}${file === undefined ? "" : ` in ${file}`} needs a Stop hook ` +
        `timeout of ${formatWait(needed)} (twice the check's limit, for a wait on another session's ` +
        `run, plus 41 s), but ${limit.name} waits at most ${formatWait(limit.maxMs)} for a hook; ` +
        "lower verify.timeoutMs. Nothing was changed",
    );
  }
}

/** The check a project's config asks for, trusted or not (an install prepares for it either way). */
export interface ProjectCheck {
  /** The config file, or null without one. */
  file: string | null;
  /** `verify.timeoutMs` (its default when unset), or null without a `verify`. */
  timeoutMs: number | null;
  /** Why the config cannot be read, or null. */
  problem: string | null;
}

export function projectCheck(cwd: string, env: Record<string, string | undefined>): ProjectCheck {
  let loaded: LoadedConfig | null;
  try {
    loaded = findProjectConfig(cwd, env.HOME);
  } catch (error) {
    return unreadableCheck(error);
  }
  return projectCheckOf(loaded);
}

/** `projectCheck` of a config already read (null: no config file). */
export function projectCheckOf(loaded: LoadedConfig | null): ProjectCheck {
  if (loaded === null) return { file: null, timeoutMs: null, problem: null };
  try {
    const verify = effectiveConfig(loaded).verify;
    return { file: loaded.path, timeoutMs: verify?.timeoutMs.value ?? null, problem: null };
  } catch (error) {
    return unreadableCheck(error);
  }
}

function unreadableCheck(error: unknown): ProjectCheck {
  return {
    file: null,
    timeoutMs: null,
    problem: error instanceof Error ? error.message : String(error),
  };
}

/**
 * What an installer writes for the Stop hook of `host` in the project at
 * `cwd`: the timeout in the host's unit, and a line saying why. Throws when
 * the host cannot wait that long.
 */
export function stopTimeoutForInstall(
  host: HookHost,
  cwd: string,
  env: Record<string, string | undefined>,
): { value: number; line: string } {
  const check = projectCheck(cwd, env);
  checkHostCanWait(host, check.timeoutMs, check.file ?? undefined);
  const ms = stopHookTimeoutMs(check.timeoutMs);
  const value = inHostUnit(host, ms);
  const unit = value === ms && ms >= 1000 ? "ms" : HOST_HOOK_LIMITS[host].unit;
  if (check.problem !== null) {
    return {
      value,
      line: `Stop hook timeout: ${value} ${unit} (the project config cannot be read, so no check was planned for: ${check.problem})`,
    };
  }
  if (check.timeoutMs === null) return { value, line: `Stop hook timeout: ${value} ${unit}` };
  return {
    value,
    line:
      `Stop hook timeout: ${value} ${unit}, covering verify.timeoutMs ${check.timeoutMs} in ${check.file} ` +
      "(twice it, for a wait on another session's run, plus 41 s); install again after raising it",
  };
}

/**
 * For `doctor`: whether an installed Stop hook timeout (in ms; null when the
 * handler writes none, so the host's default applies) covers the project's
 * check. Null when there is nothing to say (no check configured).
 */
export function stopTimeoutCovers(
  host: HookHost,
  installedMs: number | null,
  check: ProjectCheck,
): { ok: boolean; message: string } | null {
  if (check.timeoutMs === null) return null;
  const needed = stopHookTimeoutMs(check.timeoutMs);
  const have = installedMs ?? HOST_HOOK_LIMITS[host].defaultMs;
  const how = installedMs === null ? `${HOST_HOOK_LIMITS[host].name}'s default` : "installed";
  return have >= needed
    ? {
        ok: true,
        message: `Stop hook timeout ${formatWait(have)} (${how}) covers verify.timeoutMs ${check.timeoutMs}`,
      }
    : {
        ok: false,
        message:
          `Stop hook timeout ${formatWait(have)} (${how}) does not cover verify.timeoutMs ` +
          `${check.timeoutMs} in ${check.file} (it needs ${formatWait(needed)}): ${HOST_HOOK_LIMITS[host].name} ` +
          "would stop waiting for the hook while the check runs, and the stop would go unverified",
      };
}
