import { existsSync } from "node:fs";
import { join } from "node:path";
import { projectSettings } from "../../config/project.js";
import type { PartialPrice } from "../../core/cost/price.js";
import { resolvePreset } from "../../core/engine/presets.js";
import type { ContinuationMode, Limits, PresetName, SkipReason } from "../../core/types.js";
import { notifyLogPath } from "../../notify/log.js";
import { createNotifier, type Notifier } from "../../notify/notifier.js";
import type { VerifyOptions } from "../../runtime/runtime.js";
import { ignoreStoreFolder } from "../../store/file/self-ignore.js";
import { verifyProject } from "../../verify/verify-project.js";
import { watcherFolder } from "../../verify/watcher-paths.js";

/**
 * What a hook process takes from the project's config file
 * (`todo-continuation.config.json`) for one session: the preset and limits
 * (a `--preset` given to the hook command wins over the file's), the `verify`
 * check when the file is trusted, and what to tell the user. Loaded at most
 * once per hook process, and only by the events whose decision depends on it
 * (a Stop, and the outcome records whose token count follows the limits).
 */
export interface HookProject {
  preset?: PresetName;
  limits?: Partial<Limits>;
  /** `advise` records decisions and never blocks a stop (the hook's `--mode` wins over the file). */
  mode?: ContinuationMode;
  /** The file's prices, over the package's table. */
  prices?: Record<string, PartialPrice>;
  /** The check, ready for the runtime; absent without a trusted `verify`. */
  verify?: VerifyOptions;
  /** Notifications, ready for the runtime; absent without a trusted `notify`. */
  notify?: Notifier;
  /** The file does not validate (the message names the file and the field): no nudge. */
  problem: string | null;
  /** A line for stderr: a `verify` waiting for `todo-continuation trust`. */
  notice: string | null;
}

export interface HookProjectInput {
  /** The session's working folder (the hook input's `cwd`): the walk to the config starts here. */
  cwd: string;
  /** The session's project folder: where the check runs. */
  projectDir: string;
  /** The hook's store folder (the file store's root, or where it would be): the check's cache lives inside. */
  storeRoot: string;
  env: Record<string, string | undefined>;
  /** The hook command's `--preset`, which wins over the file's. */
  presetFlag?: string | undefined;
  /** The hook command's `--mode`, which wins over the file's. */
  modeFlag?: ContinuationMode | undefined;
  /** The host, as notifications name it (`claude-code`, ...). */
  host?: string;
  /**
   * How notifications go out: `detached` (default) for a process per event,
   * which must not wait for a receiver; `in-process` for a long-lived host.
   */
  notifyMode?: "detached" | "in-process";
}

/** `TODO_CONTINUATION_VERIFY_WATCHER=0`: hooks neither ask nor start the shared watcher. */
export const WATCHER_SWITCH = "TODO_CONTINUATION_VERIFY_WATCHER";

/** The folder inside the store folder that holds the check's cached results and lock. */
export const VERIFY_CACHE_FOLDER = "verify-cache";

/**
 * Reads the project config for a hook. Never throws: a config that cannot be
 * used comes back as `problem`, and the hook allows the stop.
 */
export function loadHookProject(input: HookProjectInput): HookProject {
  const settings = projectSettings(input.cwd, {
    env: input.env,
    ...(input.presetFlag !== undefined ? { presetFlag: input.presetFlag } : {}),
  });
  if (settings.problem !== null) return { problem: settings.problem, notice: settings.notice };
  const out: HookProject = {
    problem: null,
    notice: [settings.notice, settings.notifyNotice].filter((n) => n != null).join("; ") || null,
  };
  if (settings.preset !== undefined) out.preset = settings.preset;
  if (settings.limits !== undefined) out.limits = settings.limits;
  const mode = input.modeFlag ?? settings.mode;
  if (mode !== undefined) out.mode = mode;
  if (settings.prices !== undefined) out.prices = settings.prices;
  if (settings.verify !== null) {
    out.verify = {
      settings: settings.verify,
      cwd: input.projectDir,
      cacheDir: join(input.storeRoot, VERIFY_CACHE_FOLDER),
    };
    // A hook's process looks once and exits: the project's shared watcher
    // answers for the tree instead of a stat of every file.
    if (input.env[WATCHER_SWITCH] !== "0") {
      const watcher = { folder: watcherFolder(input.env) };
      out.verify.check = (options) => verifyProject({ ...options, watcher });
    }
  }
  if (settings.notify != null) {
    out.notify = createNotifier({
      settings: settings.notify,
      host: input.host ?? "unknown",
      projectDir: input.projectDir,
      log: notifyLogPath(input.storeRoot),
      env: input.env,
      mode: input.notifyMode ?? "detached",
    });
  }
  return out;
}

/**
 * A loader that reads the config the first time it is asked and returns the
 * same answer after: one read per hook process, none for events that never ask.
 */
export function lazyHookProject(input: HookProjectInput): () => HookProject {
  let loaded: HookProject | null = null;
  return () => {
    loaded ??= loadHookProject(input);
    return loaded;
  };
}

/**
 * Makes the check's cache folder ignore itself in git (a `.gitignore` of its
 * own holding `*`) before the first check writes there: a cache file showing
 * in `git status` would change the very tree fingerprint it is keyed on. A
 * folder outside the project, or one already there, is left alone.
 */
export async function prepareVerifyCache(verify: VerifyOptions): Promise<void> {
  if (existsSync(verify.cacheDir)) return;
  await ignoreStoreFolder(verify.cwd, verify.cacheDir).catch(() => false);
}

/**
 * The preset and limits a hook's runtime runs with: the hook's own options
 * (its command's flags, or a caller's) win over the file's.
 */
export function mergedSettings(
  own: { preset?: PresetName | undefined; limits?: Partial<Limits> | undefined },
  project: HookProject | null,
): {
  preset?: PresetName;
  limits?: Partial<Limits>;
  mode?: ContinuationMode;
  prices?: Record<string, PartialPrice>;
} {
  const preset = own.preset ?? project?.preset;
  const limits =
    project?.limits === undefined ? own.limits : { ...project.limits, ...(own.limits ?? {}) };
  return {
    ...(preset !== undefined ? { preset } : {}),
    ...(limits !== undefined ? { limits } : {}),
    ...(project?.mode !== undefined ? { mode: project.mode } : {}),
    ...(project?.prices !== undefined ? { prices: project.prices } : {}),
  };
}

/**
 * The settings with at most `max` nudges per episode (the preset's or the limits' own, if lower):
 * for a host that ends a turn itself after so many blocked stops, so that our budget, not the
 * host, ends the episode (and says so).
 */
export function cappedNudges<S extends { preset?: PresetName; limits?: Partial<Limits> }>(
  settings: S,
  max: number | null,
): S {
  if (max === null) return settings;
  const own = settings.limits?.maxAutoTurns ?? resolvePreset(settings.preset).limits.maxAutoTurns;
  return { ...settings, limits: { ...settings.limits, maxAutoTurns: Math.min(own, max) } };
}

/** The reasons after which the check would have run: a trust notice is worth a line then. */
const FINISHED: readonly SkipReason[] = ["no-incomplete-todos", "only-blocked-todos"];

/**
 * The stderr line to add after a decision, if any: the untrusted-`verify`
 * notice, once the list is finished (when the check would have run), so a
 * session hears it once per episode rather than at every stop.
 */
export function noticeAfter(
  project: HookProject | null,
  result: { action: string; reason?: SkipReason },
): string | null {
  if (project?.notice == null) return null;
  if (result.action !== "skip" || result.reason === undefined) return null;
  return FINISHED.includes(result.reason) ? `todo-continuation: ${project.notice}` : null;
}
