import { resolveScope } from "../core/scope/scope.js";
import type { CheckResult, PresetName, Scope, Todo, TokenUsage } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import type { Behaviour } from "./behaviours.js";
import {
  EnginePolicy,
  NaiveEnforcer,
  NoContinuation,
  OncePerCycle,
  type Policy,
} from "./policies.js";
import { createRandom, randomInt } from "./random.js";

export const POLICY_NAMES = [
  "none",
  "naive",
  "once-per-cycle",
  "typeclaw",
  "parley",
  "omo",
  "pi",
  "default",
  "default+verify",
] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

function usage(output: number): TokenUsage {
  return { input: 0, output, cacheRead: 0, cacheWrite: 0, total: output };
}

/** A run stops here even if the policy would go on: that is a runaway. */
export const MAX_STEPS = 200;
const TURN_MS = 60_000;

export interface RunMetrics {
  completed: number;
  completable: number;
  nudges: number;
  wastedNudges: number;
  longestUnproductiveRun: number;
  nudgeTokens: number;
  violations: number;
  /** What each violation was, for the report. */
  violationKinds: string[];
  /** The agent marked items done without doing them (1) or not (0). */
  falseFinishes: number;
  /** ...and the run ended with the list finished but the work not done (1), or not (0). */
  missedFalseFinishes: number;
}

function makePolicy(
  name: PolicyName,
  clock: () => number,
  runIndex: number,
  todos: Todo[],
  work: boolean[],
): Policy {
  if (name === "none") return new NoContinuation();
  if (name === "naive") return new NaiveEnforcer();
  if (name === "once-per-cycle") return new OncePerCycle();
  const scope = resolveScope({ kind: "session", host: "sim", sessionId: `run-${runIndex}` });
  if (name === "default+verify") {
    return new EnginePolicy("default", new MemoryStore(), scope as Scope, clock, () =>
      projectCheck(todos, work, clock()),
    );
  }
  return new EnginePolicy(name as PresetName, new MemoryStore(), scope as Scope, clock);
}

/** The project's check as the sim knows it: passes when every item's work is really done. */
function projectCheck(todos: Todo[], work: boolean[], now: number): CheckResult {
  const missing = todos.filter((_, i) => !work[i]).map((t) => t.content);
  return {
    command: "npm test",
    status: missing.length === 0 ? "passed" : "failed",
    exitCode: missing.length === 0 ? 0 : 1,
    signal: null,
    startedAt: now,
    durationMs: 2_000,
    outputTail:
      missing.length === 0
        ? "all tests pass"
        : `${missing.length} failing:\n${missing.map((m) => `  ✗ ${m}`).join("\n")}`,
    // The working tree changes exactly when work gets done.
    tree: work.map((w) => (w ? "1" : "0")).join(""),
  };
}

/** Items completed whose work is really done: progress, as the truth sees it. */
function completedCount(todos: Todo[], work: boolean[]): number {
  return todos.filter((t, i) => t.status === "completed" && work[i]).length;
}

/** The list as far as "did the agent touch it" goes: every item's text and status. */
function listShape(todos: Todo[]): string {
  return JSON.stringify(todos.map((t) => [t.content, t.status]));
}

/**
 * One simulated session: the user's turn, then idles the policy answers, until
 * the policy stops nudging (or the step cap calls it a runaway). The world
 * keeps the truth the policy is judged against: whether the user aborted,
 * whether a question or background work is pending, whether a restart's kick
 * already owns the next turn.
 */
export async function simulateRun(
  behaviour: Behaviour,
  policyName: PolicyName,
  seed: number,
  runIndex: number,
): Promise<RunMetrics> {
  const random = createRandom(seed);
  const total = randomInt(random, 6, 12);
  const todos: Todo[] = Array.from({ length: total }, (_, i) => ({
    content: `Item ${i + 1} of the plan`,
    status: i === 0 ? "in_progress" : "pending",
  }));
  let now = 1_700_000_000_000;
  const work: boolean[] = todos.map(() => false);
  const policy = makePolicy(policyName, () => now, runIndex, todos, work);
  const m: RunMetrics = {
    completed: 0,
    completable: behaviour.completable(total),
    nudges: 0,
    wastedNudges: 0,
    longestUnproductiveRun: 0,
    nudgeTokens: 0,
    violations: 0,
    violationKinds: [],
    falseFinishes: 0,
    missedFalseFinishes: 0,
  };
  let userAborted = false;
  /** The list as it stood when the user redirected the agent, until the agent touches it. */
  let redirectedAt: string | null = null;
  let redirected = false;
  let lastFailed = false;
  let nudgesThisEpisode = 0;
  const budget = policy.episodeBudget();
  let asking = false;
  let backgroundUntil = 0;
  let bestCompleted = 0;
  let unproductive = 0;
  const violate = (kind: string) => {
    m.violations++;
    m.violationKinds.push(kind);
  };

  /** Runs one agent turn; returns true when the process crashed at its end. */
  const runTurn = async (turn: number, injectedTurn: boolean): Promise<boolean> => {
    let injected = injectedTurn;
    const before = todos.map((t) => t.status);
    const result = behaviour.turn({
      todos,
      turn,
      backgroundRunning: now < backgroundUntil,
      redirected,
      lastFailed,
      work,
      random,
    });
    // An item that became completed was really done, unless the agent only claimed it.
    const fakes = new Set(result.fakes ?? []);
    if (fakes.size > 0) m.falseFinishes = 1;
    todos.forEach((t, i) => {
      if (t.status === "completed" && before[i] !== "completed" && !fakes.has(i)) work[i] = true;
    });
    now += TURN_MS;
    lastFailed = result.stopReason === "transient_error" || result.stopReason === "error";
    if (result.redirects) {
      // The user's message started this turn: it is theirs, not the nudge's.
      await policy.userTurn(todos);
      nudgesThisEpisode = 0;
      redirected = true;
      redirectedAt = listShape(todos);
      injected = false;
    }
    if (result.userAborts) userAborted = true;
    if (result.asks) asking = true;
    if (result.startsBackgroundMs) backgroundUntil = now + result.startsBackgroundMs;
    await policy.turnEnded(result.stopReason, result.usage, injected, result.crashes === true);
    if (result.compacts) {
      // The host's summary turn: nobody's request, and the agent does no work in it.
      await policy.turnEnded("stop", usage(4_000), false, false);
    }
    return result.crashes === true;
  };

  await policy.userTurn(todos);
  let crashed = await runTurn(0, false);
  bestCompleted = completedCount(todos, work);
  let turn = 1;
  for (let step = 0; step < MAX_STEPS; step++) {
    if (crashed) {
      // The host restarts and sends its own kick; the kick owns the first idle.
      await policy.restarted();
      const doubled = await policy.idle({ todos, signals: {}, now });
      if (doubled !== null) {
        violate("nudged on top of the restart kick");
        m.nudges++;
        m.nudgeTokens += doubled;
      }
      crashed = await runTurn(turn++, false);
      bestCompleted = Math.max(bestCompleted, completedCount(todos, work));
      continue;
    }
    const background = now < backgroundUntil;
    const tokens = await policy.idle({
      todos,
      signals: { backgroundWork: background, awaitingUser: asking },
      now,
    });
    if (tokens === null) {
      if (background) {
        // The host wakes the session when the background work finishes.
        now = backgroundUntil;
        continue;
      }
      break;
    }
    m.nudges++;
    m.nudgeTokens += tokens;
    nudgesThisEpisode++;
    if (nudgesThisEpisode > budget) violate("nudged past its episode's nudge budget");
    if (redirectedAt !== null && listShape(todos) === redirectedAt) {
      violate("nudged a redirected session before it touched its list");
    }
    if (userAborted) violate("nudged after the user aborted");
    if (asking) violate("nudged while a question to the user was pending");
    if (background) violate("nudged while background work ran");
    crashed = await runTurn(turn++, true);
    const completed = completedCount(todos, work);
    if (completed > bestCompleted) {
      bestCompleted = completed;
      unproductive = 0;
    } else {
      m.wastedNudges++;
      unproductive++;
      m.longestUnproductiveRun = Math.max(m.longestUnproductiveRun, unproductive);
    }
    if (step === MAX_STEPS - 1) violate(`still nudging after ${MAX_STEPS} steps (runaway)`);
  }
  m.completed = Math.min(m.completable, completedCount(todos, work));
  const listFinished = todos.every((t) => t.status === "completed" || t.status === "cancelled");
  if (m.falseFinishes > 0 && listFinished && work.some((w) => !w)) m.missedFalseFinishes = 1;
  return m;
}
