import { mergeEventHooks } from "../hook-kit/hook-groups.js";
import { GEMINI_HOOK_NAME } from "./command.js";
import { CHILD_AGENT_TOOL, LIST_TOOLS } from "./todos.js";

/**
 * Our hooks in a Gemini CLI settings object (`{"hooks": {Event: [{matcher?,
 * hooks: [{name, type, command, timeout}]}]}}`). Every handler we write is
 * named `todo-continuation`, and only handlers with that name are ever
 * changed or removed: every other hook, group and setting is kept exactly as
 * it was. Pure; bad settings throw an error naming the field before anything
 * changes.
 */

export interface GeminiHookSpec {
  event: string;
  /** A regular expression over tool names (tool events only). */
  matcher?: string;
}

/** Milliseconds Gemini CLI waits for one hook call (its default is 60000); ours take well under one second. */
export const GEMINI_HOOK_TIMEOUT_MS = 30_000;

const exact = (names: readonly string[]) => `^(${names.join("|")})$`;

export const GEMINI_HOOK_SPECS: readonly GeminiHookSpec[] = [
  { event: "BeforeAgent" },
  // Only to know when a subagent runs: its tool calls fire the parent's hooks.
  { event: "BeforeTool", matcher: exact([CHILD_AGENT_TOOL]) },
  { event: "AfterTool", matcher: exact([...LIST_TOOLS, CHILD_AGENT_TOOL]) },
  { event: "AfterAgent" },
];

export class GeminiSettingsError extends Error {
  override name = "GeminiSettingsError";
}

type Json = Record<string, unknown>;

export interface GeminiSettingsChange {
  settings: Json;
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
  if (!isObject(settings)) {
    throw new GeminiSettingsError(`${where} must be a JSON object, got ${describe(settings)}`);
  }
  const hooks = settings.hooks;
  if (hooks !== undefined && !isObject(hooks)) {
    throw new GeminiSettingsError(`${where}: "hooks" must be an object, got ${describe(hooks)}`);
  }
  for (const [event, groups] of Object.entries((hooks ?? {}) as Json)) {
    if (!Array.isArray(groups)) {
      throw new GeminiSettingsError(
        `${where}: "hooks.${event}" must be an array, got ${describe(groups)}`,
      );
    }
    groups.forEach((group, i) => {
      if (!isObject(group)) {
        throw new GeminiSettingsError(
          `${where}: "hooks.${event}[${i}]" must be an object, got ${describe(group)}`,
        );
      }
      if (group.hooks !== undefined && !Array.isArray(group.hooks)) {
        throw new GeminiSettingsError(
          `${where}: "hooks.${event}[${i}].hooks" must be an array, got ${describe(group.hooks)}`,
        );
      }
    });
  }
  return settings;
}

export function isOurGeminiHandler(handler: unknown): boolean {
  return isObject(handler) && handler.name === GEMINI_HOOK_NAME;
}

function handlerOf(command: string, timeout: number = GEMINI_HOOK_TIMEOUT_MS): Json {
  return { name: GEMINI_HOOK_NAME, type: "command", command, timeout };
}

/**
 * Removes every handler of ours, from any event, and only those. Groups,
 * events and a `hooks` object left empty go too.
 */
export function removeGeminiHooks(raw: unknown, where = "settings"): GeminiSettingsChange {
  const settings = structuredClone(checkSettings(raw, where));
  if (!isObject(settings.hooks)) return { settings, changes: [] };
  const hooks = settings.hooks;
  const changes: string[] = [];
  for (const [event, value] of Object.entries(hooks)) {
    let removed = 0;
    const next: Json[] = [];
    for (const group of value as Json[]) {
      const handlers = (group.hooks ?? []) as unknown[];
      const kept = handlers.filter((h) => !isOurGeminiHandler(h));
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

/**
 * Adds our hooks or brings them up to date; idempotent. A handler of ours in
 * a group with the wanted matcher is kept (its command updated); any other
 * handler of ours goes; a missing one is appended as a new group.
 */
export function mergeGeminiHooks(
  raw: unknown,
  command: string,
  specs: readonly GeminiHookSpec[] = GEMINI_HOOK_SPECS,
  where = "settings",
  /** AfterAgent's timeout in milliseconds: longer when a project check runs in it. */
  stopTimeoutMs: number = GEMINI_HOOK_TIMEOUT_MS,
): GeminiSettingsChange {
  const settings = structuredClone(checkSettings(raw, where));
  const hooks: Json = isObject(settings.hooks) ? settings.hooks : {};
  const changes: string[] = [];
  const wantedEvents = new Set(specs.map((s) => s.event));
  for (const spec of specs) {
    const merged = mergeEventHooks(
      (hooks[spec.event] ?? []) as Json[],
      spec,
      handlerOf(command, spec.event === "AfterAgent" ? stopTimeoutMs : GEMINI_HOOK_TIMEOUT_MS),
      isOurGeminiHandler,
    );
    hooks[spec.event] = merged.groups;
    changes.push(...merged.changes);
  }
  // Events an earlier version listened to and this one does not.
  for (const event of Object.keys(hooks)) {
    if (wantedEvents.has(event)) continue;
    const cleaned = removeGeminiHooks({ hooks: { [event]: hooks[event] } }, where);
    if (cleaned.changes.length === 0) continue;
    const left = (cleaned.settings.hooks ?? {}) as Json;
    if (Object.hasOwn(left, event)) hooks[event] = left[event];
    else delete hooks[event];
    changes.push(...cleaned.changes.map((c) => `${c} (no longer used)`));
  }
  if (changes.length === 0) return { settings: structuredClone(raw as Json), changes };
  settings.hooks = hooks;
  return { settings, changes };
}

/** Our handlers in these settings, as Gemini CLI's hook trust sees them (name and command). */
/** The timeout (ms) of our AfterAgent handler; null without one, or when it names none. */
export function installedAfterAgentTimeout(raw: unknown): number | null {
  const groups = isObject(raw) && isObject(raw.hooks) ? raw.hooks.AfterAgent : undefined;
  if (!Array.isArray(groups)) return null;
  for (const group of groups) {
    const handlers = isObject(group) && Array.isArray(group.hooks) ? group.hooks : [];
    for (const handler of handlers) {
      if (!isOurGeminiHandler(handler)) continue;
      const timeout = (handler as Json).timeout;
      return typeof timeout === "number" && timeout > 0 ? timeout : null;
    }
  }
  return null;
}

export function ourGeminiHandlers(raw: unknown): { name: string; command: string }[] {
  if (!isObject(raw) || !isObject(raw.hooks)) return [];
  const found: { name: string; command: string }[] = [];
  for (const groups of Object.values(raw.hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks)) continue;
      for (const handler of group.hooks) {
        if (isOurGeminiHandler(handler) && typeof (handler as Json).command === "string") {
          found.push({ name: GEMINI_HOOK_NAME, command: (handler as Json).command as string });
        }
      }
    }
  }
  return found;
}

/** What the settings say about the agent's todo tool and whether hooks run at all. */
export interface GeminiToolFacts {
  model: string | null;
  taskTracker: boolean;
  writeTodosDisabled: boolean;
  hooksDisabled: boolean;
  ourHookDisabled: boolean;
}

export function toolFactsOf(settings: unknown): GeminiToolFacts {
  const s = isObject(settings) ? settings : {};
  const model = isObject(s.model) && typeof s.model.name === "string" ? s.model.name : null;
  const experimental = isObject(s.experimental) ? s.experimental : {};
  const hooksConfig = isObject(s.hooksConfig) ? s.hooksConfig : {};
  const disabled = Array.isArray(hooksConfig.disabled) ? hooksConfig.disabled : [];
  return {
    model,
    taskTracker: experimental.taskTracker === true,
    writeTodosDisabled: s.useWriteTodos === false,
    hooksDisabled: hooksConfig.enabled === false,
    ourHookDisabled: disabled.includes(GEMINI_HOOK_NAME),
  };
}

/**
 * Whether the agent gets a todo tool, in Gemini CLI 0.61's rules: the task
 * tracker when `experimental.taskTracker` is on (any model); otherwise
 * `write_todos` only for a named gemini-2.x model that is not a preview
 * (the default `auto` routes to gemini-3 models, which have neither).
 */
export function todoToolOf(
  facts: Pick<GeminiToolFacts, "model" | "taskTracker" | "writeTodosDisabled">,
): { tool: "tracker" | "write_todos"; why: string } | { tool: null; why: string } {
  if (facts.taskTracker) {
    return {
      tool: "tracker",
      why: "experimental.taskTracker is on: the agent has the tracker_* tools",
    };
  }
  const model = facts.model ?? "auto";
  if (/^gemini-2(\.|$)/.test(model) && !/preview/.test(model) && !facts.writeTodosDisabled) {
    return { tool: "write_todos", why: `model ${model} has write_todos` };
  }
  const reason = facts.writeTodosDisabled
    ? "useWriteTodos is false"
    : `model ${model} has no write_todos (only named gemini-2.x models do)`;
  return {
    tool: null,
    why: `${reason} and experimental.taskTracker is off: the agent has no todo tool, so there is nothing to continue. Set "experimental": {"taskTracker": true} in Gemini CLI's settings`,
  };
}
