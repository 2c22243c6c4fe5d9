import type {
  ContinuationState,
  Decision,
  DecisionInput,
  Episode,
  HostSignals,
  Limits,
  ParkReason,
  SkipReason,
  StopReason,
  TodoSummary,
  TurnOutcome,
} from "../types.js";
import { budgetSkip } from "./budgets.js";
import { inCooldown } from "./cooldown.js";
import { foldSpend } from "./spend.js";
import { judgeStagnation } from "./stagnation.js";

/**
 * Turn endings after which a nudge may follow. `length` (the reply was cut at
 * the output limit) is safe: the agent stopped mid-work, which is exactly what
 * a nudge is for, and repeats stay bounded by the turn, spend and stagnation
 * budgets. `error` (an API error) is not: errors repeat, and nudging into one
 * is how loops of hundreds of nudges happen. `aborted`, `context_overflow` and
 * `unknown` are never safe.
 */
export const SAFE_STOP_REASONS: readonly StopReason[] = ["stop", "tool_use", "length"];

/** Host signals, in ladder order. Absent, null or false is "no"; any other value is "yes". */
const SIGNAL_CHECKS: readonly [keyof HostSignals, SkipReason][] = [
  ["agentExcluded", "agent-excluded"],
  ["recovering", "recovering"],
  ["backgroundWork", "background-work"],
  ["awaitingUser", "awaiting-user"],
  // The host keeps the session going toward its goal: a nudge would stack a second loop on it.
  ["hostGoalActive", "host-goal-active"],
];

/**
 * The outcome a nudge may answer: present, safe, and not already answered by
 * the latest nudge (a second idle for the same turn must not nudge again).
 */
export function isSafeOutcome(
  outcome: TurnOutcome | null | undefined,
  episode: Episode | null | undefined,
): boolean {
  if (outcome == null || !SAFE_STOP_REASONS.includes(outcome.stopReason)) return false;
  return episode?.answeredTurnId == null || outcome.turnId !== episode.answeredTurnId;
}

/**
 * A new episode's id: derived from the time it opens. One scope opens at most
 * one episode per real user turn, so ids do not repeat within a scope.
 */
export function episodeId(now: number): string {
  return `ep-${Math.max(0, Math.trunc(now)).toString(36)}`;
}

export function openEpisode(now: number, outcome: TurnOutcome): Episode {
  return {
    id: episodeId(now),
    startedAt: now,
    autoTurns: 0,
    tokens: 0,
    stagnation: 0,
    lastFingerprint: null,
    minIncomplete: null,
    maxCompleted: null,
    // The turn that ended before the first nudge is the user's: not charged.
    lastCountedTurnId: outcome.turnId,
    failures: 0,
    lastInjectionAt: null,
    lastFailureAt: null,
    answeredTurnId: null,
    errorRetries: 0,
  };
}

/** The episode after one more nudge: counters up, progress marks moved to the list as it is now. */
export function afterNudge(
  episode: Episode,
  summary: TodoSummary,
  stagnation: number,
  outcome: TurnOutcome,
  now: number,
  retry: boolean,
): Episode {
  const retries = episode.errorRetries ?? 0;
  return {
    ...episode,
    autoTurns: Math.min(Number.MAX_SAFE_INTEGER, episode.autoTurns + 1),
    stagnation,
    lastFingerprint: summary.fingerprint,
    minIncomplete:
      episode.minIncomplete === null
        ? summary.incomplete
        : Math.min(episode.minIncomplete, summary.incomplete),
    maxCompleted:
      episode.maxCompleted === null
        ? summary.completed
        : Math.max(episode.maxCompleted, summary.completed),
    lastInjectionAt: now,
    answeredTurnId: outcome.turnId,
    errorRetries: retry ? Math.min(Number.MAX_SAFE_INTEGER, retries + 1) : retries,
  };
}

/**
 * What the last turn's ending allows: a nudge (`ok`), a retry after a
 * transient provider error, or a skip. A provider error that a retry will not
 * fix, and a transient one that came back after its retries, park the scope
 * until the user speaks (`park`).
 */
function judgeOutcome(
  outcome: TurnOutcome | null,
  episode: Episode | null,
  limits: Limits,
): { verdict: "ok" | "retry" } | { verdict: "skip"; reason: SkipReason; park: boolean } {
  if (
    outcome == null ||
    (episode?.answeredTurnId != null && outcome.turnId === episode.answeredTurnId)
  ) {
    return { verdict: "skip", reason: "turn-not-safe", park: false };
  }
  switch (outcome.stopReason) {
    case "stop":
    case "tool_use":
    case "length":
      return { verdict: "ok" };
    case "transient_error":
      // Written so that a NaN limit or counter parks instead of retrying.
      return outcome.hostRetried !== true && (episode?.errorRetries ?? 0) < limits.maxErrorRetries
        ? { verdict: "retry" }
        : { verdict: "skip", reason: "retries-exhausted", park: true };
    case "error":
    case "context_overflow":
      return { verdict: "skip", reason: "provider-error", park: true };
    default:
      return { verdict: "skip", reason: "turn-not-safe", park: false };
  }
}

/**
 * Steps 2 to 7 of the ladder, shared by `decide` and `decideVerification`:
 * the restart kick (consumed here), the user's blocks, a park, the host's
 * signals and the last turn's ending (which may park). Returns the state to
 * carry on with.
 */
export function gateSteps(
  input: ContinuationState,
  signals: HostSignals,
  limits: Limits,
):
  | { verdict: "ok" | "retry"; state: ContinuationState }
  | { verdict: "skip"; reason: SkipReason; state: ContinuationState } {
  let state = input;
  const skip = (reason: SkipReason) => ({ verdict: "skip" as const, reason, state });
  if (state.restartKickArmed) {
    state = { ...state, restartKickArmed: false };
    return skip("restart-kick-suppressed");
  }
  if (state.userAbortBlocked) return skip("user-abort-blocked");
  if (state.stopped) return skip("continuation-stopped");
  if (state.parked != null) return skip(state.parked);
  for (const [signal, reason] of SIGNAL_CHECKS) {
    const value: unknown = signals?.[signal];
    if (value !== undefined && value !== null && value !== false) return skip(reason);
  }
  const ending = judgeOutcome(state.lastOutcome, state.episode ?? null, limits);
  if (ending.verdict === "skip") {
    if (ending.park) state = { ...state, parked: ending.reason as ParkReason };
    return skip(ending.reason);
  }
  return { verdict: ending.verdict, state };
}

/**
 * Decides whether to nudge now. Pure: no I/O, no clock, no randomness, and the
 * input is never mutated. The skip ladder is first-match-wins, in this order:
 *
 *  0. `state-unreadable` (the stored state could not be trusted; until the
 *     user's next real turn clears it)
 *  1. `no-incomplete-todos`, `only-blocked-todos`
 *  2. `restart-kick-suppressed`
 *  3. `user-abort-blocked`  4. `continuation-stopped`
 *  5. `provider-error`, `retries-exhausted` (the scope is parked)
 *  6. `agent-excluded`, `recovering`, `background-work`, `awaiting-user`,
 *     `host-goal-active`
 *  7. `turn-not-safe`, `provider-error`, `retries-exhausted` (the last turn's ending)
 *  8. `list-unchanged-since-user`
 *  9. `max-auto-turns`, `max-tokens`, `max-wall-clock`, `too-many-incomplete`
 * 10. `stagnation`  11. `cooldown`
 *
 * then `inject`. The returned `state` is what to persist either way:
 * - the last outcome's spend is folded into the episode first, on every
 *   decision, exactly once per outcome;
 * - the restart kick is consumed by the first decision that gets past step 1
 *   while it is armed, and that decision skips with it as the reason. A
 *   decision stopped at step 1 leaves it armed: no nudge was due, so the
 *   kick has not yet stood in for one;
 * - a provider error that must not be retried parks the scope (step 7), and
 *   later decisions skip at step 5 until a real user turn.
 * Nothing else is written on a skip, so deciding twice on the same inputs
 * gives the same answer.
 *
 * After a transient provider error (network, rate limit, overloaded) the
 * nudge is a retry: it skips steps 8 and 10 (the agent did not get to work,
 * so neither the list nor its progress says anything), is charged to every
 * budget like any nudge, and is limited to `maxErrorRetries` in a row.
 *
 * Every ambiguity skips: counts that are not positive numbers read as nothing
 * to do, comparisons against limits are written so NaN skips, and a host
 * signal counts as set unless it is absent, null or false.
 */
export function decide(input: DecisionInput): Decision {
  const { summary, signals, limits, now } = input;
  if (typeof now !== "number" || !Number.isFinite(now)) {
    throw new Error(`decide: now must be a finite number of milliseconds, got ${String(now)}`);
  }
  let state: ContinuationState = input.state;
  // Budgets that could not be read are unknown, never fresh: nothing is folded
  // or consumed, and nothing injects until a real user turn.
  if (state.untrusted !== false) return { action: "skip", reason: "state-unreadable", state };
  const folded = foldSpend(state.episode, state.lastOutcome, limits.tokenMode);
  if (folded !== state.episode) state = { ...state, episode: folded };
  const skip = (reason: SkipReason): Decision => ({ action: "skip", reason, state });

  if (!(summary.incomplete > 0)) return skip("no-incomplete-todos");
  if (!(summary.actionable > 0)) return skip("only-blocked-todos");
  const gate = gateSteps(state, signals, limits);
  state = gate.state;
  if (gate.verdict === "skip") return skip(gate.reason);
  const episode = state.episode ?? null;
  const outcome = state.lastOutcome;
  const retry = gate.verdict === "retry";
  const atUserTurn = state.userTurnFingerprint;
  if (!retry && atUserTurn != null && summary.fingerprint === atUserTurn) {
    return skip("list-unchanged-since-user");
  }
  const budget = budgetSkip(episode, summary, limits, now, state.lastOutcome);
  if (budget !== null) return skip(budget);
  const verdict = retry
    ? { count: episode?.stagnation ?? 0, stagnant: false }
    : judgeStagnation(episode, summary, limits);
  if (verdict.stagnant) return skip("stagnation");
  if (inCooldown(episode, limits, now)) return skip("cooldown");

  const answered = outcome as TurnOutcome;
  const next = afterNudge(
    episode ?? openEpisode(now, answered),
    summary,
    verdict.count,
    answered,
    now,
    retry,
  );
  const decision: Decision = {
    action: "inject",
    state: { ...state, episode: next },
    episode: next,
  };
  if (retry) decision.retry = true;
  return decision;
}
