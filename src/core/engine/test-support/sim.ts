import { emptyList } from "../../todo/model.js";
import { summarize } from "../../todo/summary.js";
import type {
  ContinuationState,
  Decision,
  HostSignals,
  Limits,
  StopReason,
  TodoList,
  TodoSummary,
  TokenUsage,
} from "../../types.js";
import { decide } from "../decide.js";
import { emptyState, parseContinuationState, zeroUsage } from "../state.js";
import {
  armRestartKick,
  onDeliveryFailed,
  onDeliverySucceeded,
  onInjectedTurnStart,
  onRealUserTurn,
  onTurnOutcome,
} from "../transitions.js";

/** Lists are never mutated in place, so a summary can be kept per list object. */
const SUMMARIES = new WeakMap<TodoList, TodoSummary>();

/**
 * Drives the pure engine the way a runtime does: turns start and end, idles
 * decide, nudges are delivered or fail. Counts what tests assert on.
 */
export class Sim {
  state: ContinuationState;
  list: TodoList;
  now: number;
  turn = 0;
  injections = 0;
  /** Injections since the last real user turn. */
  injectionsThisEpisode = 0;
  lastDecision: Decision | null = null;

  constructor(
    readonly limits: Limits,
    list: TodoList,
    options: { state?: ContinuationState; now?: number; idPrefix?: string } = {},
  ) {
    this.list = list;
    this.state = options.state ?? emptyState();
    this.now = options.now ?? 1_000_000;
    this.idPrefix = options.idPrefix ?? "t";
  }

  readonly idPrefix: string;

  /** The list's summary, computed once per list revision (a runtime computes it per decision: same result). */
  summary(): TodoSummary {
    let summary = SUMMARIES.get(this.list);
    if (summary === undefined) {
      summary = summarize(this.list);
      SUMMARIES.set(this.list, summary);
    }
    return summary;
  }

  /** Persists and reloads the state, as a store does between events. */
  roundTrip(): this {
    this.state = parseContinuationState(JSON.parse(JSON.stringify(this.state)));
    return this;
  }

  tick(ms: number): this {
    this.now += ms;
    return this;
  }

  userTurn(): this {
    this.state = onRealUserTurn(this.state, this.now, this.summary().fingerprint);
    this.injectionsThisEpisode = 0;
    return this;
  }

  /**
   * The user asks for work before the list exists: the agent writes the list
   * in the turn that follows, so the list has moved since the user spoke.
   */
  userAsks(): this {
    this.state = onRealUserTurn(this.state, this.now, summarize(emptyList()).fingerprint);
    this.injectionsThisEpisode = 0;
    return this;
  }

  injectedTurn(): this {
    this.state = onInjectedTurnStart(this.state);
    return this;
  }

  turnEnd(
    stopReason: StopReason = "stop",
    usage: Partial<TokenUsage> = {},
    flags: { injected?: boolean; restartCaused?: boolean } = {},
  ): this {
    this.turn++;
    this.state = onTurnOutcome(
      this.state,
      {
        turnId: `${this.idPrefix}${this.turn}`,
        stopReason,
        endedAt: this.now,
        usage: { ...zeroUsage(), ...usage },
        injected: flags.injected ?? false,
        restartCaused: flags.restartCaused ?? false,
      },
      this.limits.tokenMode,
    );
    return this;
  }

  /** Decides and persists; on inject, delivers (or fails to). */
  idle(signals: HostSignals = {}, deliver: "ok" | "fail" = "ok"): Decision {
    const decision = decide({
      state: this.state,
      summary: this.summary(),
      signals,
      limits: this.limits,
      now: this.now,
    });
    this.state = decision.state;
    this.lastDecision = decision;
    if (decision.action === "inject") {
      this.injections++;
      this.injectionsThisEpisode++;
      this.state =
        deliver === "ok" ? onDeliverySucceeded(this.state) : onDeliveryFailed(this.state, this.now);
    }
    return decision;
  }

  /** A process restart: the state goes through JSON and the parser, and the kick is armed. */
  restart(): this {
    this.roundTrip();
    this.state = armRestartKick(this.state);
    return this;
  }

  /** Marks the first actionable item completed; false when none is left. */
  completeNext(): boolean {
    const i = this.list.todos.findIndex(
      (t) => t.status === "pending" || t.status === "in_progress",
    );
    if (i < 0) return false;
    this.list = {
      ...this.list,
      todos: this.list.todos.map((t, j) => (j === i ? { ...t, status: "completed" } : t)),
    };
    return true;
  }

  setStatus(index: number, status: TodoList["todos"][number]["status"]): this {
    this.list = {
      ...this.list,
      todos: this.list.todos.map((t, j) =>
        j === index
          ? { ...t, status, ...(status === "blocked" ? { blockedReason: "waiting" } : {}) }
          : t,
      ),
    };
    return this;
  }
}
