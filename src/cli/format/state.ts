import { outcomeCost } from "../../core/cost/price.js";
import { PRICES_AS_OF } from "../../core/cost/prices.js";
import { episodeLimits } from "../../core/engine/allowance.js";
import { describeAllowance } from "../../core/engine/allowance-parse.js";
import { isSafeOutcome } from "../../core/engine/decide.js";
import { judgeStagnation } from "../../core/engine/stagnation.js";
import {
  formatAgo,
  formatCount,
  formatDuration,
  formatRunTime,
  formatUsd,
  limitCount,
  limitDuration,
  plural,
} from "../../core/explain/numbers.js";
import { REASON_TITLES } from "../../core/explain/reasons.js";
import type {
  CheckResult,
  ContinuationState,
  DecisionLogEntry,
  Limits,
  Reminder,
  TodoSummary,
  TurnOutcome,
} from "../../core/types.js";

/**
 * The budget of the open episode as "used of limit" pairs. With the list's
 * summary, stagnation is shown as the next decision would count it (a skip
 * never stores its count, so the stored one can lag by one).
 */
export function budgetLines(
  state: ContinuationState,
  configured: Limits,
  now: number,
  summary?: TodoSummary,
): string[] {
  const e = state.episode;
  // The user's raises count: the lines show what this episode may use.
  const limits = episodeLimits(configured, e);
  if (e === null) {
    return ["No episode is open: one opens with the first nudge after a real user message."];
  }
  // Only a turn the episode has not answered yet is judged at the next decision.
  const judged = summary !== undefined && isSafeOutcome(state.lastOutcome, e);
  const stagnation = judged ? judgeStagnation(e, summary, limits).count : e.stagnation;
  const lines = [
    `Episode ${e.id}, started ${formatAgo(e.startedAt, now)}:`,
    `  nudges      ${formatCount(e.autoTurns)} of ${limitCount(limits.maxAutoTurns)}`,
    `  tokens      ${formatCount(e.tokens)} of ${limitCount(limits.maxTokens)} (${limits.tokenMode})`,
    `  time        ${formatDuration(Math.max(0, now - e.startedAt))} of ${limitDuration(limits.maxWallClockMs)}`,
    `  stagnation  ${formatCount(stagnation)} of ${limits.stagnationLimit === 0 ? "off" : limitCount(limits.stagnationLimit)} (${limits.stagnationMode})`,
  ];
  lines.push(`  cost        ${costWords(state, limits)}`);
  if (e.failures > 0) {
    lines.push(
      `  failed deliveries  ${formatCount(e.failures)} of ${limitCount(limits.maxDeliveryFailures)}`,
    );
  }
  return [...lines, ...raisedLines(state)];
}

/**
 * The episode's cost against its limit: "$0.45 of $2.00", "$0.45 (no limit)",
 * and "unknown" whenever a turn could not be priced (never taken as free).
 */
export function costWords(state: ContinuationState, limits: Limits): string {
  const e = state.episode;
  const spent = formatUsd(e?.costUsd ?? 0);
  const of = limits.maxCostUsd === null ? " (no limit)" : ` of ${formatUsd(limits.maxCostUsd)}`;
  let unpriced = e?.unpricedTurns ?? 0;
  const last = state.lastOutcome;
  if (
    unpriced === 0 &&
    last != null &&
    e?.lastCountedTurnId !== last.turnId &&
    outcomeCost(last) === null
  ) {
    unpriced = 1;
  }
  const model = e?.model ?? last?.model;
  const named = model === undefined ? "" : `, model ${model}`;
  if (unpriced > 0) {
    return `unknown: ${spent} priced${of}, ${plural(unpriced, "turn")} without a price${named} (prices as of ${PRICES_AS_OF}; add the model under \`prices\` in the config file)`;
  }
  return `${spent}${of}${named}`;
}

/** What the user added to this episode, in the words `why` and `show` use. */
export function raisedLines(state: ContinuationState): string[] {
  const r = state.episode?.raised;
  if (r == null) return [];
  return [
    `limits raised by the user: ${describeAllowance(r)} (\`resume --add\`; the next real user message starts a fresh episode without it)`,
  ];
}

/** The suppressors that hold nudges back regardless of budget, in words. */
export function suppressorLines(state: ContinuationState): string[] {
  const lines: string[] = [];
  if (state.untrusted) {
    lines.push("stored state unreadable: no nudges until the user speaks again");
  }
  if (state.stopped) lines.push("stopped by the user: no nudges until `resume`");
  if (state.userAbortBlocked) {
    lines.push("the user interrupted: no nudges until the user speaks again");
  }
  if (state.restartKickArmed) lines.push("restart kick armed: the next idle is skipped once");
  return lines;
}

export function outcomeLine(outcome: TurnOutcome | null, now: number): string {
  if (outcome === null) return "none recorded";
  const parts = [
    `ended "${outcome.stopReason}" ${formatAgo(outcome.endedAt, now)}`,
    `${formatCount(outcome.usage.total)} tokens`,
  ];
  if (outcome.injected) parts.push("started by a nudge");
  if (outcome.restartCaused) parts.push("cut short by a restart");
  return parts.join(", ");
}

export function reminderLine(reminders: Reminder[]): string | null {
  if (reminders.length === 0) return null;
  const kinds = [...new Set(reminders.map((r) => r.kind))].join(", ");
  return `${plural(reminders.length, "reminder")} queued for the next turn (${kinds})`;
}

/** One log entry as a short phrase: "inject #2", "skip: no progress (stagnation)". */
export function decisionPhrase(entry: DecisionLogEntry): string {
  switch (entry.action) {
    case "inject": {
      const delivered =
        entry.delivered === undefined ? "" : entry.delivered ? ", delivered" : ", not delivered";
      const note = entry.note ? ` (${entry.note})` : "";
      if (entry.advise === true) return `advise: would nudge #${entry.autoTurns}${note}`;
      return `inject nudge #${entry.autoTurns}${delivered}${note}`;
    }
    case "raised":
      return `limits raised by the user${entry.note ? `: ${entry.note}` : ""}`;
    case "delivery-failed":
      return `delivery failed${entry.note ? `: ${entry.note}` : ""}`;
    case "skip":
      return entry.reason === null
        ? "skip"
        : `skip: ${REASON_TITLES[entry.reason]} (${entry.reason})${entry.note ? `; ${entry.note}` : ""}`;
  }
}

/** Lines about the project's last check: when, how it ended, how long, its output tail. */
export function checkLines(
  check: CheckResult | null | undefined,
  now: number,
  tailLines = 5,
): string[] {
  if (check == null) return ["Last verification: none"];
  const ending =
    check.status === "passed"
      ? "passed (exit 0)"
      : check.status === "failed"
        ? `failed (exit ${check.exitCode ?? check.signal ?? "?"})`
        : check.status === "timed-out"
          ? "timed out (not nudged)"
          : "could not start";
  const lines = [
    `Last verification: \`${check.command}\` ${ending} ${formatAgo(check.startedAt, now)}, took ${formatRunTime(check.durationMs)}`,
  ];
  const tail = check.outputTail.trim();
  if (tail !== "" && check.status !== "passed") {
    for (const line of tail.split("\n").slice(-tailLines)) lines.push(`  | ${line}`);
  }
  return lines;
}

/**
 * A scope's continuation state in a few words, for the `list` table: what
 * holds it back first, else the open episode, else the last decision.
 */
export function stateWords(
  state: ContinuationState,
  limits: Limits,
  last: DecisionLogEntry | null,
): string {
  if (state.stopped) return "stopped by user";
  if (state.untrusted) return "state unreadable, held until the user speaks";
  if (state.userAbortBlocked) return "interrupted by user";
  const episode = state.episode;
  const lastWords = last === null ? null : lastDecisionWords(last);
  if (episode !== null) {
    // What the user added with `resume --add` counts, as the engine counts it.
    const budget = `${episode.autoTurns}/${limitCount(episodeLimits(limits, episode).maxAutoTurns)} nudges`;
    return lastWords === null ? `episode: ${budget}` : `episode: ${budget}, ${lastWords}`;
  }
  return lastWords ?? "idle";
}

function lastDecisionWords(entry: DecisionLogEntry): string {
  if (entry.action === "skip" && entry.reason !== null) return `last: ${entry.reason}`;
  if (entry.action === "delivery-failed") return "last: delivery failed";
  return "last: nudged";
}
