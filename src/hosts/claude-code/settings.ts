import { mergeEventHooks } from "../hook-settings.js";
import { compareVersions, type Version, versionOf } from "../version.js";
import { isOurCommand } from "./command.js";
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

type Json = Record<string, unknown>;

export interface SettingsChange {
  settings: Json;
  /** One line per change, e.g. `added Stop hook`; empty when nothing changed. */
  changes: string[];
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkSettings(settings: unknown, where: string): Json {
  if (!isObject(settings))
    throw new SettingsError(`${where} must be a JSON object, got ${describe(settings)}`);
  const hooks = settings.hooks;
  if (hooks !== undefined && !isObject(hooks)) {
    throw new SettingsError(`${where}: "hooks" must be an object, got ${describe(hooks)}`);
  }
  for (const [event, groups] of Object.entries((hooks ?? {}) as Json)) {
    if (!Array.isArray(groups)) {
      throw new SettingsError(
        `${where}: "hooks.${event}" must be an array, got ${describe(groups)}`,
      );
    }
    groups.forEach((group, i) => {
      if (!isObject(group)) {
        throw new SettingsError(
          `${where}: "hooks.${event}[${i}]" must be an object, got ${describe(group)}`,
        );
      }
      if (group.hooks !== undefined && !Array.isArray(group.hooks)) {
        throw new SettingsError(
          `${where}: "hooks.${event}[${i}].hooks" must be an array, got ${describe(group.hooks)}`,
        );
      }
    });
  }
  return settings;
}

function handlerOf(command: string, timeout: number = HOOK_TIMEOUT_SECONDS): Json {
  return { type: "command", command, timeout };
}

/** Which handlers are ours: commands that run `hook <host>` (another host's args for its own settings). */
export type OursTest = (handler: unknown) => boolean;

/** The test for handlers running `hookArgs` (`hook claude-code` by default). */
export function oursBy(hookArgs?: string): OursTest {
  return (handler) =>
    isObject(handler) && handler.type === "command" && isOurCommand(handler.command, hookArgs);
}

const isClaudeHandler = oursBy();

/**
 * Adds our hooks, or brings them up to date. Per event: the first group with
 * our matcher holding our handler keeps one handler with the new command;
 * every other handler of ours for that event is removed (and a group left
 * empty by that with it); without one, a new group is appended.
 */
export function mergeHooks(
  raw: unknown,
  command: string,
  specs: readonly HookSpec[] = HOOK_SPECS,
  where = "settings",
  /** The Stop hook's timeout in seconds: longer when a project check runs in it. */
  stopTimeoutSeconds: number = HOOK_TIMEOUT_SECONDS,
  isOurHandler: OursTest = isClaudeHandler,
): SettingsChange {
  const settings = structuredClone(checkSettings(raw, where));
  const hooks: Json = isObject(settings.hooks) ? settings.hooks : {};
  const changes: string[] = [];
  for (const spec of specs) {
    const merged = mergeEventHooks(
      (hooks[spec.event] ?? []) as Json[],
      spec,
      handlerOf(command, spec.event === "Stop" ? stopTimeoutSeconds : HOOK_TIMEOUT_SECONDS),
      isOurHandler,
    );
    hooks[spec.event] = merged.groups;
    changes.push(...merged.changes);
  }
  // Events an earlier version listened to and this one does not.
  const wanted = new Set(specs.map((s) => s.event));
  const stale = Object.fromEntries(Object.entries(hooks).filter(([event]) => !wanted.has(event)));
  const cleaned = removeHooks({ hooks: stale }, where, isOurHandler);
  if (cleaned.changes.length > 0) {
    const left = (cleaned.settings.hooks ?? {}) as Json;
    for (const event of Object.keys(stale)) {
      if (Object.hasOwn(left, event)) hooks[event] = left[event];
      else delete hooks[event];
    }
    changes.push(...cleaned.changes.map((c) => `${c} (no longer used)`));
  }
  if (changes.length === 0) return { settings: structuredClone(raw as Json), changes };
  settings.hooks = hooks;
  return { settings, changes };
}

/**
 * Removes every handler of ours, from any event, and only those. Groups left
 * empty go, events left empty go, and an emptied `hooks` object goes.
 */
export function removeHooks(
  raw: unknown,
  where = "settings",
  isOurHandler: OursTest = isClaudeHandler,
): SettingsChange {
  const settings = structuredClone(checkSettings(raw, where));
  if (!isObject(settings.hooks)) return { settings, changes: [] };
  const hooks = settings.hooks;
  const changes: string[] = [];
  for (const [event, value] of Object.entries(hooks)) {
    const groups = value as Json[];
    let removed = 0;
    const next: Json[] = [];
    for (const group of groups) {
      const handlers = (group.hooks ?? []) as unknown[];
      const out = handlers.filter((h) => !isOurHandler(h));
      removed += handlers.length - out.length;
      if (out.length === handlers.length) next.push(group);
      else if (out.length > 0) next.push({ ...group, hooks: out });
    }
    if (removed === 0) continue;
    changes.push(`removed ${event} hook${removed > 1 ? `s (${removed})` : ""}`);
    if (next.length > 0) hooks[event] = next;
    else delete hooks[event];
  }
  if (changes.length === 0) return { settings: structuredClone(raw as Json), changes };
  if (Object.keys(hooks).length === 0) delete settings.hooks;
  return { settings, changes };
}

/** The timeout (seconds) of our Stop handler; null without one, or when it names none. */
export function installedStopTimeout(
  raw: unknown,
  isOurHandler: OursTest = isClaudeHandler,
): number | null {
  if (!isObject(raw) || !isObject(raw.hooks)) return null;
  const groups = raw.hooks.Stop;
  if (!Array.isArray(groups)) return null;
  for (const group of groups) {
    if (!isObject(group) || !Array.isArray(group.hooks)) continue;
    for (const handler of group.hooks) {
      if (!isOurHandler(handler)) continue;
      const timeout = (handler as Json).timeout;
      return typeof timeout === "number" && timeout > 0 ? timeout : null;
    }
  }
  return null;
}

/** The command our hooks run in these settings, or null when none is installed. */
export function installedCommand(
  raw: unknown,
  isOurHandler: OursTest = isClaudeHandler,
): string | null {
  if (!isObject(raw) || !isObject(raw.hooks)) return null;
  for (const groups of Object.values(raw.hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks)) continue;
      for (const handler of group.hooks) {
        if (isOurHandler(handler)) return (handler as Json).command as string;
      }
    }
  }
  return null;
}
