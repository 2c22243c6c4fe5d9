import type { HostSignals, Scope, SkipReason, StopReason, TokenUsage } from "../core/types.js";
import type { ContinuationRuntime, Nudge, VerifyOptions } from "./runtime.js";

/**
 * Re-entries allowed per activation, shared by every kind of runtime nudge
 * (todo continuation, a reply nudge, a subagent-completion nudge), so they can
 * never ping-pong one another into a loop. Fresh input resets it.
 */
export class WakeBudget {
  #used = 0;
  constructor(readonly max: number) {
    if (!Number.isSafeInteger(max) || max < 0) {
      throw new Error(`WakeBudget: max must be a non-negative integer (got ${String(max)})`);
    }
  }
  get used(): number {
    return this.#used;
  }
  get remaining(): number {
    return Math.max(0, this.max - this.#used);
  }
  /** Takes one re-entry; false when the budget is spent. */
  take(): boolean {
    if (this.#used >= this.max) return false;
    this.#used++;
    return true;
  }
  /** Fresh input (a human message, a peer reply, a cron kick) starts a new activation. */
  reset(): void {
    this.#used = 0;
  }
}

export interface TurnReport {
  stopReason: StopReason;
  usage?: Partial<TokenUsage>;
  /** The model that ran the turn (prices it for `maxCostUsd`). */
  model?: string;
  /** The session is waiting on a human, a peer or an approval: do not re-enter. */
  parked?: boolean;
}

export interface WakeLoopOptions {
  runtime: ContinuationRuntime;
  scope: Scope;
  /** Runs one model turn; `nudge` is null for the activation's first turn. */
  runTurn: (input: { nudge: Nudge | null }) => Promise<TurnReport>;
  /** Default: the runtime preset's `maxWakeCycles` (25 for parley). */
  maxWakeCycles?: number;
  /** A budget shared with other nudges of this activation; created when absent. */
  budget?: WakeBudget;
  signals?: HostSignals | (() => HostSignals | Promise<HostSignals>);
  /**
   * The project's check for this loop, in place of the runtime's own `verify`
   * (null: none). With a check, a finished list is not the end: the check
   * runs, a failure is nudged like open todos, and a pass ends the loop as
   * `verified`.
   */
  verify?: VerifyOptions | null;
  /** Waits out a retry's backoff after a transient provider error; injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Why the loop yielded. `idle`: actionable todos remain (resumes on fresh
 * input); `dormant`: nothing actionable is open; `parked`: the turn said it
 * waits on someone.
 */
export type WakeState = "idle" | "dormant" | "parked";

/**
 * Why the loop ended, always set: the engine's skip reason, or `parked` (the
 * turn waits on someone), `nothing-actionable` (no open todo can be worked),
 * `wake-budget` (the re-entries allowed this activation are spent, before the
 * engine was asked; logged as a skip with that reason), `not-delivered` (the nudge could not be handed on),
 * `advise` (advise mode: a nudge was due, recorded, and not sent).
 */
export type WakeStop =
  | SkipReason
  | "parked"
  | "nothing-actionable"
  | "wake-budget"
  | "not-delivered"
  | "advise";

export interface WakeLoopResult {
  state: WakeState;
  /** Re-entries made after the first turn. */
  cycles: number;
  /** The engine's last skip reason, or null if the loop ended for another cause. */
  lastSkip: SkipReason | null;
  /** Why the loop ended; never null. */
  stoppedBy: WakeStop;
}

/**
 * The wake loop (seed 002) for runtimes that own their loop: run a turn; while
 * actionable todos remain, the session is not parked, the shared budget lasts
 * and the engine says inject, run another turn with the nudge. The caller
 * records the real user turn that started the activation.
 */
export async function runWakeLoop(options: WakeLoopOptions): Promise<WakeLoopResult> {
  const { runtime, scope } = options;
  const budget =
    options.budget ?? new WakeBudget(options.maxWakeCycles ?? runtime.preset.maxWakeCycles);
  let nudge: Nudge | null = null;
  let cycles = 0;
  for (;;) {
    const report = await options.runTurn({ nudge });
    await runtime.turnEnded(scope, {
      stopReason: report.stopReason,
      injected: nudge !== null,
      ...(report.usage ? { usage: report.usage } : {}),
      ...(report.model ? { model: report.model } : {}),
    });
    if (report.parked) return { state: "parked", cycles, lastSkip: null, stoppedBy: "parked" };
    const verify = options.verify === undefined ? runtime.verify : options.verify;
    const summary = (await runtime.explain(scope)).summary;
    // With a check, a finished list goes to the engine, which runs it.
    if (summary.actionable === 0 && verify === null) {
      return { state: "dormant", cycles, lastSkip: null, stoppedBy: "nothing-actionable" };
    }
    if (budget.remaining === 0) {
      // Logged, so `why` and `log` say why the loop stopped after its last nudge.
      await runtime.recordSkip(scope, "wake-budget", "wake");
      const state: WakeState = summary.actionable === 0 ? "dormant" : "idle";
      return { state, cycles, lastSkip: null, stoppedBy: "wake-budget" };
    }
    const result = await runtime.runIdle(scope, {
      trigger: "wake",
      verify,
      ...(options.signals ? { signals: options.signals } : {}),
      // Delivery here is handing the nudge to the next turn, which the budget must allow.
      deliver: () => {
        if (!budget.take()) throw new Error("wake budget spent");
      },
    });
    if (result.action === "skip") {
      const state: WakeState =
        summary.actionable === 0 ||
        result.reason === "no-incomplete-todos" ||
        result.reason === "only-blocked-todos"
          ? "dormant"
          : "idle";
      return { state, cycles, lastSkip: result.reason, stoppedBy: result.reason };
    }
    if (result.advised === true) {
      // Advise mode: the nudge is recorded, and the loop ends as if none were due.
      return { state: "idle", cycles, lastSkip: null, stoppedBy: "advise" };
    }
    if (!result.delivered) {
      return { state: "idle", cycles, lastSkip: null, stoppedBy: "not-delivered" };
    }
    nudge = result.nudge;
    cycles++;
    // A retry after a transient provider error goes out after its backoff.
    if ((nudge.delayMs ?? 0) > 0) await (options.sleep ?? sleep)(nudge.delayMs ?? 0);
  }
}
