import type { Decision, DecisionLogEntry, TodoSummary } from "../types.js";

/** What the log keeps of a nudge (the runtime's `Nudge` has these and more). */
interface NudgeSize {
  chars: number;
  tokens: number;
}

/** The decision-log entry for one decision (the runtime's, and the PostgreSQL benchmark's workers). */
export function decisionLogEntry(
  decision: Decision,
  summary: TodoSummary,
  nudge: NudgeSize | null,
  trigger: string,
  now: number,
): DecisionLogEntry {
  const episode = decision.state.episode;
  return {
    at: now,
    action: decision.action,
    reason: decision.action === "skip" ? decision.reason : null,
    episodeId: episode?.id ?? null,
    autoTurns: episode?.autoTurns ?? 0,
    tokens: episode?.tokens ?? 0,
    stagnation: episode?.stagnation ?? 0,
    actionable: summary.actionable,
    blocked: summary.blocked,
    nudgeChars: nudge?.chars ?? null,
    nudgeTokens: nudge?.tokens ?? null,
    trigger,
    // The dashboard's totals per day read cost from the logs, as they read tokens.
    ...(episode?.costUsd === undefined ? {} : { costUsd: episode.costUsd }),
  };
}
