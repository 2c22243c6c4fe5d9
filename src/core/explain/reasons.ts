import { cooldownDelay } from "../engine/cooldown.js";
import { SAFE_STOP_REASONS } from "../engine/decide.js";
import { judgeStagnation } from "../engine/stagnation.js";
import type { ContinuationState, Limits, SkipReason, TodoSummary } from "../types.js";
import {
  formatAgo,
  formatCount,
  formatDuration,
  formatRunTime,
  formatUsd,
  limitCount,
  limitDuration,
  plural,
} from "./numbers.js";

/** What a reason is about, for the facts it quotes. */
export interface ReasonContext {
  state: ContinuationState;
  summary: TodoSummary;
  limits: Limits;
  now: number;
}

/** One short clause per skip reason, for tables and log lines. */
export const REASON_TITLES: Record<SkipReason, string> = {
  "state-unreadable": "stored state unreadable",
  "no-incomplete-todos": "nothing left to do",
  "only-blocked-todos": "only blocked items remain",
  "restart-kick-suppressed": "restart kick owns this idle",
  "user-abort-blocked": "user interrupted",
  "continuation-stopped": "stopped by the user",
  "agent-excluded": "agent excluded",
  recovering: "session recovering",
  "background-work": "background work running",
  "awaiting-user": "waiting for the user's answer",
  "turn-not-safe": "last turn did not end cleanly",
  "provider-error": "parked after a provider error",
  "retries-exhausted": "provider error came back after a retry",
  "list-unchanged-since-user": "list untouched since the user spoke",
  "max-auto-turns": "nudge budget used up",
  "max-tokens": "token budget used up",
  "max-wall-clock": "time budget used up",
  "max-cost": "out of budget: cost",
  "too-many-incomplete": "too many open items",
  stagnation: "no progress",
  cooldown: "cooling down after failed deliveries",
  "wake-budget": "wake budget of this activation used up",
  "host-goal-active": "the host's own goal loop is driving this session; ours steps aside",
  verified: "the project's check passed",
  "verify-timed-out": "the project's check ran out of time",
  "verify-error": "the project's check could not start",
  "verify-unchanged-failure": "the check fails as before, nothing changed",
  "config-invalid": "the project's config file is invalid",
};

/**
 * A full sentence explaining a skip, quoting the numbers behind it, so a person
 * can tell what would have to change for the agent to be nudged again.
 */
export function explainSkip(reason: SkipReason, ctx: ReasonContext): string {
  const { state, summary, limits, now } = ctx;
  const episode = state.episode;
  switch (reason) {
    case "state-unreadable":
      return "The stored continuation state could not be trusted (unreadable, out of range or edited by hand), so its budgets are unknown; no nudge until the user speaks again.";
    case "no-incomplete-todos":
      return summary.total === 0
        ? "The list is empty, so there is nothing to continue."
        : "Every item is completed or cancelled, so there is nothing to continue.";
    case "only-blocked-todos":
      return `Only blocked items remain (${summary.blocked}); the session parks instead of nagging until someone unblocks them or adds work.`;
    case "restart-kick-suppressed":
      return "The process restarted and its own restart kick owns this idle; this one-shot is used up by the next idle, which then decides normally.";
    case "user-abort-blocked":
      return "The user interrupted the last turn; no nudge until the user speaks again.";
    case "continuation-stopped":
      return "The user stopped continuation for this scope; it stays stopped until `resume`.";
    case "agent-excluded":
      return "The agent is excluded: it is on the skip list, in a plan or read-only mode, lacks write permission, or is a subagent.";
    case "recovering":
      return "The host is recovering the session; nudging now would collide with it.";
    case "background-work":
      return "Background tasks or subagents are still running; the agent is waiting on them, not stuck.";
    case "awaiting-user":
      return "The agent asked the user a question and is waiting for the answer.";
    case "turn-not-safe": {
      const outcome = state.lastOutcome;
      if (outcome === null) {
        return "No turn outcome is recorded yet, so it is unknown how the last turn ended; the engine does not guess.";
      }
      if (!SAFE_STOP_REASONS.includes(outcome.stopReason)) {
        return `The last turn ended with "${outcome.stopReason}", which is not a clean stop; nudging after it could loop on the same failure.`;
      }
      return "The last turn was already answered by a nudge; the next nudge waits until another turn ends.";
    }
    case "provider-error":
      return "The last turn ended in a provider error that retrying will not fix (authentication, an invalid request, a context overflow, or an error nobody could classify); continuation is parked until the user speaks.";
    case "retries-exhausted":
      return `A temporary provider error (network, rate limit, overloaded) came back after ${plural(episode?.errorRetries ?? 0, "retry", "retries")} in a row (limit ${formatCount(limits.maxErrorRetries)}); continuation is parked until the user speaks.`;
    case "list-unchanged-since-user":
      return "The user spoke and the todo list has not changed since: the agent may be doing what the user asked instead. Nudging resumes once the agent works its list again (closes, starts, adds or edits an item).";
    case "max-auto-turns":
      return `This episode already sent ${formatCount(episode?.autoTurns ?? 0)} of ${limitCount(limits.maxAutoTurns)} nudges; the next real user message starts a new episode.`;
    case "max-tokens":
      return `This episode spent ${formatCount(episode?.tokens ?? 0)} of ${limitCount(limits.maxTokens)} tokens (${limits.tokenMode === "spend" ? "cached input not counted" : "cached input counted"}); the next real user message starts a new episode.`;
    case "max-wall-clock": {
      const elapsed = episode ? now - episode.startedAt : 0;
      if (elapsed < 0) {
        return "The episode's start lies in the future (a clock that stepped back, or a hand-edited file), which counts as spent; the next real user message starts a new episode.";
      }
      return `This episode has run for ${formatDuration(elapsed)} of ${limitDuration(limits.maxWallClockMs)}; the next real user message starts a new episode.`;
    }
    case "max-cost":
      return explainCost(state, limits);
    case "too-many-incomplete":
      return `${plural(summary.incomplete, "incomplete item")} exceed the ceiling of ${formatCount(limits.maxIncomplete ?? 0)}; the list is too long to push through unattended.`;
    case "stagnation": {
      // A skip writes nothing, so the stored count lags by this decision: judge it again.
      const count = judgeStagnation(episode, summary, limits).count;
      const progress =
        limits.stagnationMode === "strict"
          ? "made progress (no item closed, no fewer open items)"
          : "changed";
      return `The list has not ${progress} over the last ${plural(count, "nudge")} (limit ${limits.stagnationLimit}); the agent is not making progress, so nudging stopped until the user speaks.`;
    }
    case "host-goal-active":
      return "The host's own goal loop is driving this session; ours steps aside. The host (Claude Code or Codex `/goal`) continues the session until its condition is met, so a nudge would stack a second continuation on it. Nudging resumes once the goal is met, paused or cleared.";
    case "config-invalid":
      return "The project's config file (todo-continuation.config.json, or package.json's \"todo-continuation\" key) does not validate, so the limits it sets are unknown and no nudge is sent; the log entry's note names the file and the field. Fix the file (`todo-continuation config` checks it) and the next stop decides as usual.";
    case "wake-budget":
      return "The wake loop used every re-entry its shared budget allows for this activation (replies and subagent completions draw on it too); the next activation, a real user message, starts with a fresh budget.";
    case "verified": {
      const last = state.verify?.last;
      const took = last ? ` in ${formatRunTime(last.durationMs)}` : "";
      const cached = last?.cached === true ? " (the working tree is unchanged since that run)" : "";
      return `Nothing is left on the list and the project's check \`${last?.command ?? "verify"}\` passed${took}${cached}: the work is verified, so the agent may stop.`;
    }
    case "verify-timed-out": {
      const last = state.verify?.last;
      return `The project's check \`${last?.command ?? "verify"}\` did not finish within its time limit${last ? ` (${formatRunTime(last.durationMs)})` : ""} and was killed; a check that gives no answer never nudges. Raise verify.timeoutMs or make the check faster.`;
    }
    case "verify-error": {
      const last = state.verify?.last;
      return `The project's check \`${last?.command ?? "verify"}\` could not be started${last?.outputTail ? ` (${firstLine(last.outputTail)})` : ""}; an unknown result never nudges.`;
    }
    case "verify-unchanged-failure": {
      const last = state.verify?.last;
      const code = last?.exitCode == null ? "" : ` (exit code ${last.exitCode})`;
      return `The project's check \`${last?.command ?? "verify"}\` failed${code} again with the working tree and the list unchanged since the nudge about it; nudging again would only repeat itself, so this episode ends until the user speaks.`;
    }
    case "cooldown": {
      const failures = episode?.failures ?? 0;
      if (failures >= limits.maxDeliveryFailures) {
        return `${plural(failures, "delivery", "deliveries")} in a row failed (limit ${limitCount(limits.maxDeliveryFailures)}); this episode stops trying.`;
      }
      const last = episode?.lastFailureAt ?? null;
      const wait =
        last === null
          ? ""
          : `; the next try is allowed ${formatAgo(last + cooldownDelay(failures, limits), now)}`;
      return `The last ${plural(failures, "delivery", "deliveries")} failed, so nudges back off${wait}.`;
    }
  }
}

/** Why the cost budget stops nudging: spent, or unknown (never taken for free). */
function explainCost(state: ContinuationState, limits: Limits): string {
  const episode = state.episode;
  const spent = formatUsd(episode?.costUsd ?? 0);
  const limit = limits.maxCostUsd === null ? "no limit" : formatUsd(limits.maxCostUsd);
  const unpriced = (episode?.unpricedTurns ?? 0) + (state.lastOutcome?.costUsd === null ? 1 : 0);
  if (unpriced > 0) {
    const model = state.lastOutcome?.model ?? episode?.model;
    const which =
      model === undefined ? "the host did not name the model" : `model "${model}" has no price`;
    return `The cost of ${plural(unpriced, "turn")} is unknown (${which}); with a cost limit of ${limit} an unknown cost is never taken for free, so no nudge is sent (priced so far: ${spent}). Add the model under \`prices\` in the config file, or raise the limit with \`todo-continuation resume <scope> --add cost=...\` once you know the cost.`;
  }
  return `This episode cost ${spent} of ${limit}; the next real user message starts a new episode, or \`todo-continuation resume <scope> --add cost=...\` raises the limit.`;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
