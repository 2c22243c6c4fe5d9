import { sha256Hex } from "../hash/sha256.js";
import type {
  CheckResult,
  ContinuationState,
  Decision,
  HostSignals,
  Limits,
  SkipReason,
  TodoSummary,
  VerifyMemory,
  VerifySettings,
} from "../types.js";
import { budgetSkip } from "./budgets.js";
import { inCooldown } from "./cooldown.js";
import { afterNudge, gateSteps, isSafeOutcome, openEpisode } from "./decide.js";
import { foldSpend } from "./spend.js";

/** The list reasons after which `when: "finished"` runs the check: nothing actionable is left. */
const FINISHED_REASONS: readonly SkipReason[] = ["no-incomplete-todos", "only-blocked-todos"];

export function emptyVerifyMemory(): VerifyMemory {
  return { last: null, nudged: null, halted: false };
}

/**
 * What a stop means for the project's check, given the list decision the
 * engine already made:
 * - `null`: no check (no `verify`, a subagent, no list tracked, a turn that did
 *   not end cleanly, an untrusted state, or a list that still has work and
 *   `when` is `finished`);
 * - `"finished"`: the list has nothing actionable left; run the check and let
 *   `decideVerification` decide;
 * - `"with-nudge"` (`when: "every-stop"` only): a list nudge is due anyway;
 *   run the check and add its failure to that nudge;
 * - `"halted"`: the episode already ended on an unchanged failure; do not
 *   run, skip with `verify-unchanged-failure`.
 */
export function verifyDue(input: {
  settings: VerifySettings | null | undefined;
  decision: Decision;
  state: ContinuationState;
  summary: TodoSummary;
  signals: HostSignals;
}): "finished" | "with-nudge" | "halted" | null {
  const { settings, decision, state, summary, signals } = input;
  if (settings == null) return null;
  const excluded: unknown = signals?.agentExcluded;
  if (excluded !== undefined && excluded !== null && excluded !== false) return null;
  // A session that tracked no list has claimed nothing to check.
  if (!(summary.total > 0)) return null;
  if (state.untrusted !== false) return null;
  if (decision.action === "inject") {
    return settings.when === "every-stop" && decision.retry !== true ? "with-nudge" : null;
  }
  if (!FINISHED_REASONS.includes(decision.reason)) return null;
  if (!isSafeOutcome(state.lastOutcome, state.episode)) return null;
  return state.verify?.halted === true ? "halted" : "finished";
}

/** A short key for "the same failure": exit code, signal and output tail. */
export function failureKey(check: CheckResult): string {
  return sha256Hex(
    `${check.status}\0${check.exitCode}\0${check.signal}\0${check.outputTail}`,
  ).slice(0, 16);
}

export interface VerificationInput {
  state: ContinuationState;
  summary: TodoSummary;
  signals: HostSignals;
  limits: Limits;
  now: number;
  /** The check's result for the tree as it is now (fresh or cached). */
  check: CheckResult;
}

/**
 * Decides a stop whose list has nothing actionable left, from the project's
 * check. Pure, like `decide`, and it keeps `decide`'s rules:
 *
 * - `passed`: skip `verified` (the work is done);
 * - `timed-out`: skip `verify-timed-out`, `error`: skip `verify-error`; a
 *   check that could not give an answer never nudges;
 * - `failed`: a verification nudge, through the same ladder as a list nudge
 *   (state, restart kick, user blocks, parks, host signals, the last turn's
 *   ending, the user's redirection, every budget, cooldown), charged like any
 *   nudge. In place of stagnation: the same failure on the same tree and list
 *   as the failure the last verification nudge answered ends the episode
 *   (`verify-unchanged-failure`), and it stays ended until a real user turn.
 *
 * The result is always recorded in `state.verify.last`, so `why`/`show` can
 * show it whatever was decided.
 */
export function decideVerification(input: VerificationInput): Decision {
  const { summary, signals, limits, now, check } = input;
  if (typeof now !== "number" || !Number.isFinite(now)) {
    throw new Error(
      `decideVerification: now must be a finite number of milliseconds, got ${String(now)}`,
    );
  }
  let state: ContinuationState = input.state;
  if (state.untrusted !== false) return { action: "skip", reason: "state-unreadable", state };
  const folded = foldSpend(state.episode, state.lastOutcome, limits.tokenMode);
  const memory = state.verify ?? emptyVerifyMemory();
  state = { ...state, episode: folded, verify: { ...memory, last: check } };
  const skip = (reason: SkipReason): Decision => ({ action: "skip", reason, state });

  if (check.status === "passed") {
    // The failure last nudged stays answered: a check that fails the same way
    // again on the same tree and list (a flaky check) must not nudge again.
    state = { ...state, verify: { last: check, nudged: memory.nudged, halted: false } };
    return skip("verified");
  }
  if (check.status === "timed-out") return skip("verify-timed-out");
  if (check.status !== "failed") return skip("verify-error");
  if (memory.halted) return skip("verify-unchanged-failure");

  const gate = gateSteps(state, signals, limits);
  state = gate.state;
  if (gate.verdict === "skip") return skip(gate.reason);
  // A provider error ended the turn: the agent never claimed to be done.
  if (gate.verdict === "retry") return skip("turn-not-safe");
  const key = failureKey(check);
  const nudged = memory.nudged;
  if (
    nudged !== null &&
    nudged.tree === check.tree &&
    nudged.list === summary.fingerprint &&
    nudged.failure === key
  ) {
    state = { ...state, verify: { last: check, nudged, halted: true } };
    return skip("verify-unchanged-failure");
  }
  // The user's redirection holds while nothing moved since they spoke. The
  // list's fingerprint covers open items only (an empty list and a finished
  // one look alike), so the tree counts too: a tree that differs from the
  // last one checked is work done since.
  const atUserTurn = state.userTurnFingerprint;
  const treeMoved = memory.last === null || memory.last.tree !== check.tree;
  if (atUserTurn != null && summary.fingerprint === atUserTurn && !treeMoved) {
    return skip("list-unchanged-since-user");
  }
  const episode = state.episode ?? null;
  const budget = budgetSkip(episode, summary, limits, now, state.lastOutcome);
  if (budget !== null) return skip(budget);
  if (inCooldown(episode, limits, now)) return skip("cooldown");

  const outcome = state.lastOutcome;
  if (outcome === null) return skip("turn-not-safe");
  const next = afterNudge(
    episode ?? openEpisode(now, outcome),
    summary,
    episode?.stagnation ?? 0,
    outcome,
    now,
    false,
  );
  const verify: VerifyMemory = {
    last: check,
    nudged: { tree: check.tree, list: summary.fingerprint, failure: key },
    halted: false,
  };
  return {
    action: "inject",
    state: { ...state, episode: next, verify },
    episode: next,
    verification: check,
  };
}
