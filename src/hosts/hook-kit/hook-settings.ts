import { type EventSpec, mergeEventHooks } from "./hook-groups.js";

/**
 * Our hooks in a JSON settings object of the Claude-compatible shape
 * (`{"hooks": {Event: [{matcher?, hooks: [handler]}]}}`), for any host that
 * uses it. Merging is idempotent and touches only handlers the host's
 * `isOurs` claims: every other hook, group and setting is kept exactly as it
 * was. Pure; bad settings throw the host's error naming the field before
 * anything changes.
 */

type Json = Record<string, unknown>;

export interface SettingsChange {
  settings: Json;
  /** One line per change, e.g. `added Stop hook`; empty when nothing changed. */
  changes: string[];
}

/** How one host's handlers look. */
export interface HandlerDialect {
  /** Whether a handler is one this integration wrote. */
  isOurs: (handler: unknown) => boolean;
  /** The handler to write for a command with a timeout (in the host's unit). */
  handlerOf: (command: string, timeout: number) => Json;
  /** The host's settings error. */
  Failure: new (
    message: string,
  ) => Error;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The settings as an object whose `hooks` has the expected shape; throws naming the field. */
export function checkHookSettings(
  settings: unknown,
  where: string,
  Failure: HandlerDialect["Failure"],
): Json {
  if (!isObject(settings)) {
    throw new Failure(`${where} must be a JSON object, got ${describe(settings)}`);
  }
  const hooks = settings.hooks;
  if (hooks !== undefined && !isObject(hooks)) {
    throw new Failure(`${where}: "hooks" must be an object, got ${describe(hooks)}`);
  }
  for (const [event, groups] of Object.entries((hooks ?? {}) as Json)) {
    if (!Array.isArray(groups)) {
      throw new Failure(`${where}: "hooks.${event}" must be an array, got ${describe(groups)}`);
    }
    groups.forEach((group, i) => {
      const at = `${where}: "hooks.${event}[${i}]`;
      if (!isObject(group)) throw new Failure(`${at}" must be an object, got ${describe(group)}`);
      if (group.hooks !== undefined && !Array.isArray(group.hooks)) {
        throw new Failure(`${at}.hooks" must be an array, got ${describe(group.hooks)}`);
      }
    });
  }
  return settings;
}

/**
 * Removes every handler of ours, from any event, and only those. Groups left
 * empty go, events left empty go, and an emptied `hooks` object goes.
 */
export function removeOurHooks(
  raw: unknown,
  where: string,
  dialect: Pick<HandlerDialect, "isOurs" | "Failure">,
): SettingsChange {
  const settings = structuredClone(checkHookSettings(raw, where, dialect.Failure));
  if (!isObject(settings.hooks)) return { settings, changes: [] };
  const hooks = settings.hooks;
  const changes: string[] = [];
  for (const [event, value] of Object.entries(hooks)) {
    let removed = 0;
    const next: Json[] = [];
    for (const group of value as Json[]) {
      const handlers = (group.hooks ?? []) as unknown[];
      const kept = handlers.filter((h) => !dialect.isOurs(h));
      removed += handlers.length - kept.length;
      if (kept.length === handlers.length) next.push(group);
      else if (kept.length > 0) next.push({ ...group, hooks: kept });
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

/** The timeouts of the handlers we write: `stop` for the stop event, `other` for the rest. */
export interface MergeTimeouts {
  stopEvent: string;
  stop: number;
  other: number;
}

/**
 * Adds our hooks, or brings them up to date. Per event: the first group with
 * our matcher holding our handler keeps one handler with the new command;
 * every other handler of ours for that event is removed (and a group left
 * empty by that with it); without one, a new group is appended. Handlers of
 * ours on events no longer listened to go.
 */
export function mergeOurHooks(
  raw: unknown,
  command: string,
  specs: readonly EventSpec[],
  where: string,
  timeouts: MergeTimeouts,
  dialect: HandlerDialect,
): SettingsChange {
  const settings = structuredClone(checkHookSettings(raw, where, dialect.Failure));
  const hooks: Json = isObject(settings.hooks) ? settings.hooks : {};
  const changes: string[] = [];
  for (const spec of specs) {
    const timeout = spec.event === timeouts.stopEvent ? timeouts.stop : timeouts.other;
    const merged = mergeEventHooks(
      (hooks[spec.event] ?? []) as Json[],
      spec,
      dialect.handlerOf(command, timeout),
      dialect.isOurs,
    );
    hooks[spec.event] = merged.groups;
    changes.push(...merged.changes);
  }
  // Events an earlier version listened to and this one does not.
  const wanted = new Set(specs.map((s) => s.event));
  const stale = Object.fromEntries(Object.entries(hooks).filter(([event]) => !wanted.has(event)));
  const cleaned = removeOurHooks({ hooks: stale }, where, dialect);
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

/** Every handler of ours in these settings (of `event` only, when named), in file order. */
export function ourHandlers(
  raw: unknown,
  isOurs: (handler: unknown) => boolean,
  event?: string,
): Json[] {
  if (!isObject(raw) || !isObject(raw.hooks)) return [];
  const events = event === undefined ? Object.values(raw.hooks) : [raw.hooks[event]];
  const found: Json[] = [];
  for (const groups of events) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks)) continue;
      for (const handler of group.hooks) if (isOurs(handler)) found.push(handler as Json);
    }
  }
  return found;
}

/** The timeout of our first handler of `event`; null without one, or when it names none. */
export function ourTimeout(
  raw: unknown,
  isOurs: (handler: unknown) => boolean,
  event: string,
): number | null {
  const [first] = ourHandlers(raw, isOurs, event);
  const timeout = first?.timeout;
  return typeof timeout === "number" && timeout > 0 ? timeout : null;
}
