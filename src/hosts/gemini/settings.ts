import {
  isObject,
  mergeOurHooks,
  ourHandlers,
  ourTimeout,
  removeOurHooks,
  type SettingsChange,
} from "../hook-kit/hook-settings.js";
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

export type GeminiSettingsChange = SettingsChange;

export function isOurGeminiHandler(handler: unknown): boolean {
  return isObject(handler) && handler.name === GEMINI_HOOK_NAME;
}

function handlerOf(command: string, timeout: number = GEMINI_HOOK_TIMEOUT_MS): Json {
  return { name: GEMINI_HOOK_NAME, type: "command", command, timeout };
}

const DIALECT = { isOurs: isOurGeminiHandler, handlerOf, Failure: GeminiSettingsError };

/**
 * Removes every handler of ours, from any event, and only those. Groups,
 * events and a `hooks` object left empty go too.
 */
export function removeGeminiHooks(raw: unknown, where = "settings"): GeminiSettingsChange {
  return removeOurHooks(raw, where, DIALECT);
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
  const timeouts = { stopEvent: "AfterAgent", stop: stopTimeoutMs, other: GEMINI_HOOK_TIMEOUT_MS };
  return mergeOurHooks(raw, command, specs, where, timeouts, DIALECT);
}

/** The timeout (ms) of our AfterAgent handler; null without one, or when it names none. */
export function installedAfterAgentTimeout(raw: unknown): number | null {
  return ourTimeout(raw, isOurGeminiHandler, "AfterAgent");
}

/** Our handlers in these settings, as Gemini CLI's hook trust sees them (name and command). */
export function ourGeminiHandlers(raw: unknown): { name: string; command: string }[] {
  return ourHandlers(raw, isOurGeminiHandler)
    .filter((handler) => typeof handler.command === "string")
    .map((handler) => ({ name: GEMINI_HOOK_NAME, command: handler.command as string }));
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
