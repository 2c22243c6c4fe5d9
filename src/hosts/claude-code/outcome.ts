import type { HostSignals, StopReason } from "../../core/types.js";
import { classifyAnthropicStopReason, classifyHostError } from "../../runtime/classify.js";
import { asksTheUser } from "../../runtime/questions.js";

export { asksTheUser };

/**
 * How a Claude Code turn ended, and what else the Stop hook input says about
 * whether the session is really done. Pure: the caller gathers the facts.
 */

/** Claude Code reports API failures as the final assistant text. */
const API_ERROR = /^\s*API Error\b/i;

export interface StopFacts {
  lastAssistantMessage: string | null;
  /** The transcript shows a user interrupt since the last real user turn. */
  interrupted: boolean;
  /** Fallback when the hook input carries no final message (older versions). */
  transcriptStopReason: string | null;
}

/**
 * The stop reason of a turn that reached the Stop hook. An interrupt wins over
 * everything (the user's Esc must hold), then an API error message, then the
 * final message itself; with no final message at all, the transcript's last
 * stop reason decides, and without one the turn is `unknown` (not safe).
 */
export function stopReasonOfStop(facts: StopFacts): StopReason {
  if (facts.interrupted) return "aborted";
  const message = facts.lastAssistantMessage;
  if (message !== null) {
    return API_ERROR.test(message) ? classifyHostError(message) : "stop";
  }
  if (facts.transcriptStopReason === null) return "unknown";
  // A turn that reached Stop is over: a dangling tool_use in a stale transcript says nothing.
  const reason = classifyAnthropicStopReason(facts.transcriptStopReason);
  return reason === "tool_use" ? "unknown" : reason;
}

/**
 * The stop reason of a turn that ended in StopFailure (an API error, after
 * Claude Code's own retries): never a clean one. Claude Code starts no turn
 * after it and ignores the hook's output, so nothing can continue from here.
 */
export function stopReasonOfFailure(
  error: string | null,
  details: string | null,
  message: string | null,
): StopReason {
  // `error` is Claude Code's own type (rate_limit, server_error, authentication_failed, ...).
  return classifyHostError({ type: error, message: details, details: message });
}

const TERMINAL_TASK_STATUSES = new Set([
  "completed",
  "failed",
  "killed",
  "cancelled",
  "canceled",
  "stopped",
  "done",
  "error",
]);

/** True while background work (a shell, a subagent, a monitor) can still wake the session. */
export function hasBackgroundWork(backgroundTasks: readonly unknown[]): boolean {
  return backgroundTasks.some((task) => {
    if (typeof task !== "object" || task === null) return true;
    const status = (task as Record<string, unknown>).status;
    return typeof status !== "string" || !TERMINAL_TASK_STATUSES.has(status.toLowerCase());
  });
}

export interface StopSignalInput {
  permissionMode: string | null;
  backgroundTasks: readonly unknown[];
  sessionCrons: readonly unknown[];
  lastAssistantMessage: string | null;
}

/**
 * Host signals for the decision: plan mode is read-only (the agent may not
 * edit, so telling it to carry on is wrong); running background work or a
 * scheduled wakeup will bring the session back by itself; a closing question
 * waits for the user.
 */
export function stopSignals(input: StopSignalInput): HostSignals {
  return {
    agentExcluded: input.permissionMode === "plan",
    backgroundWork: hasBackgroundWork(input.backgroundTasks) || input.sessionCrons.length > 0,
    awaitingUser: asksTheUser(input.lastAssistantMessage),
  };
}
