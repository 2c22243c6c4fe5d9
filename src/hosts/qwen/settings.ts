import { commandHandlerDialect, HOOK_TIMEOUT_SECONDS } from "../claude-code/settings.js";
import {
  mergeOurHooks,
  ourHandlers,
  ourTimeout,
  removeOurHooks,
  type SettingsChange,
} from "../hook-kit/hook-settings.js";
import { QWEN, QWEN_EVENTS } from "./protocol.js";

/** What names our handlers in Qwen's settings: Claude Code's handler, running `hook qwen`. */
export const QWEN_HOOK_ARGS = `hook ${QWEN}`;
const DIALECT = commandHandlerDialect(QWEN_HOOK_ARGS);
export const isQwenHandler = DIALECT.isOurs;

/** Our hooks merged into Qwen's settings; the Stop hook waits `stopSeconds`. */
export function mergeQwenHooks(
  raw: unknown,
  command: string,
  where: string,
  stopSeconds: number,
): SettingsChange {
  const timeouts = { stopEvent: "Stop", stop: stopSeconds, other: HOOK_TIMEOUT_SECONDS };
  return mergeOurHooks(raw, command, QWEN_EVENTS, where, timeouts, DIALECT);
}

export const removeQwenHooks = (raw: unknown, where: string): SettingsChange =>
  removeOurHooks(raw, where, DIALECT);

/** The command our hooks run, or null when none is installed. */
export const qwenCommand = (raw: unknown): string | null =>
  (ourHandlers(raw, isQwenHandler)[0]?.command as string | undefined) ?? null;

/** Our Stop hook's timeout as written (seconds, or milliseconds from 1000 on). */
export const qwenStopTimeout = (raw: unknown): number | null =>
  ourTimeout(raw, isQwenHandler, "Stop");
