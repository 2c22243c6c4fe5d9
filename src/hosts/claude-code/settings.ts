import {
  isObject,
  mergeOurHooks,
  ourHandlers,
  ourTimeout,
  removeOurHooks,
  type SettingsChange,
} from "../hook-kit/hook-settings.js";
import { compareVersions, type Version, versionOf } from "../hook-kit/version.js";
import { HOOK_ARGS, isOurCommand } from "./command.js";
import { LIST_TOOLS } from "./todos.js";

/**
 * Our hooks in a Claude Code settings object (`{"hooks": {Event: [{matcher?,
 * hooks: [{type, command, timeout?}]}]}}`). Merging is idempotent and touches
 * only handlers whose command is ours: every other hook, group and setting is
 * kept exactly as it was. Pure; bad settings throw an error naming the field
 * before anything changes.
 */

/** One hook this integration installs. */
export interface HookSpec {
  event: string;
  /** Claude Code's matcher (tool names for PostToolUse, the source for SessionStart). */
  matcher?: string;
  /**
   * The first Claude Code version that knows the event. Older versions load
   * no hooks at all from a settings file naming an event they do not know
   * (and drop its permission rules too), so such an event is never written
   * for them.
   */
  since?: string;
}

/**
 * The oldest Claude Code the integration supports: the oldest the end-to-end
 * suite runs against. `install` refuses older versions.
 */
export const MIN_CLAUDE_CODE_VERSION = "2.1.75";

/** Seconds Claude Code waits for one hook call; ours take well under one. */
export const HOOK_TIMEOUT_SECONDS = 30;

/**
 * The events the integration listens to. SubagentStop is left out on purpose:
 * a subagent's stop is never ours to block, so there is nothing to run.
 */
export const HOOK_SPECS: readonly HookSpec[] = [
  { event: "SessionStart", matcher: "resume" },
  { event: "UserPromptSubmit" },
  { event: "PostToolUse", matcher: LIST_TOOLS.join("|") },
  { event: "Stop" },
  { event: "StopFailure", since: "2.1.78" },
];

/**
 * The hooks to write for a Claude Code version: every event it knows. For an
 * unknown version (null), only the events every supported version knows.
 */
export function hookSpecsFor(version: Version | null): {
  specs: HookSpec[];
  left: HookSpec[];
} {
  const specs: HookSpec[] = [];
  const left: HookSpec[] = [];
  for (const spec of HOOK_SPECS) {
    const known =
      spec.since === undefined ||
      (version !== null && compareVersions(version, versionOf(spec.since)) >= 0);
    (known ? specs : left).push(spec);
  }
  return { specs, left };
}

export class SettingsError extends Error {
  override name = "SettingsError";
}

export type { SettingsChange };

type Json = Record<string, unknown>;

function handlerOf(command: string, timeout: number = HOOK_TIMEOUT_SECONDS): Json {
  return { type: "command", command, timeout };
}

/**
 * Claude Code's handler dialect for handlers running `hookArgs`: a host that
 * takes Claude Code's settings layout under its own command (Qwen Code's
 * `hook qwen`) describes itself with its own.
 */
export function commandHandlerDialect(hookArgs: string) {
  const isOurs = (handler: unknown): boolean =>
    isObject(handler) && handler.type === "command" && isOurCommand(handler.command, hookArgs);
  return { isOurs, handlerOf, Failure: SettingsError };
}

const DIALECT = commandHandlerDialect(HOOK_ARGS);
const isOurHandler = DIALECT.isOurs;

/**
 * Adds our hooks, or brings them up to date (see `mergeOurHooks`): every
 * other hook, group and setting is kept exactly as it was.
 */
export function mergeHooks(
  raw: unknown,
  command: string,
  specs: readonly HookSpec[] = HOOK_SPECS,
  where = "settings",
  /** The Stop hook's timeout in seconds: longer when a project check runs in it. */
  stopTimeoutSeconds: number = HOOK_TIMEOUT_SECONDS,
): SettingsChange {
  const timeouts = { stopEvent: "Stop", stop: stopTimeoutSeconds, other: HOOK_TIMEOUT_SECONDS };
  return mergeOurHooks(raw, command, specs, where, timeouts, DIALECT);
}

/**
 * Removes every handler of ours, from any event, and only those. Groups left
 * empty go, events left empty go, and an emptied `hooks` object goes.
 */
export function removeHooks(raw: unknown, where = "settings"): SettingsChange {
  return removeOurHooks(raw, where, DIALECT);
}

/** The timeout (seconds) of our Stop handler; null without one, or when it names none. */
export function installedStopTimeout(raw: unknown): number | null {
  return ourTimeout(raw, isOurHandler, "Stop");
}

/** The command our hooks run in these settings, or null when none is installed. */
export function installedCommand(raw: unknown): string | null {
  const [first] = ourHandlers(raw, isOurHandler);
  return first === undefined ? null : (first.command as string);
}
