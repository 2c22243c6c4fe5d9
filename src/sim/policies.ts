import { closeInstruction } from "../core/dialects/index.js";
import { PRESETS } from "../core/engine/presets.js";
import { estimateTokens, renderNudge } from "../core/nudge/index.js";
import type {
  CheckResult,
  HostSignals,
  PresetName,
  Scope,
  StopReason,
  Store,
  Todo,
  TokenUsage,
} from "../core/types.js";
import { ContinuationRuntime } from "../runtime/runtime.js";

/** What a policy sees of the world at an idle. */
export interface IdleView {
  todos: Todo[];
  signals: HostSignals;
  now: number;
}

/** A continuation policy under test: told what happens, asked at each idle. */
export interface Policy {
  readonly name: string;
  /** A real user turn starts, with the list as it stands. */
  userTurn(todos: Todo[]): Promise<void>;
  /** Nudges allowed between two real user turns (Infinity for policies without a budget). */
  episodeBudget(): number;
  turnEnded(
    stopReason: StopReason,
    usage: TokenUsage,
    injected: boolean,
    restartCaused: boolean,
  ): Promise<void>;
  /** The process restarted: in-memory state is gone; durable state survives. */
  restarted(): Promise<void>;
  /** Returns the nudge's estimated tokens when it injects, else null. */
  idle(view: IdleView): Promise<number | null>;
}

function baselineNudgeTokens(todos: Todo[]): number {
  const preset = PRESETS.omo;
  return estimateTokens(
    renderNudge(
      "status-directive",
      { todos, phases: [], nextId: 1 },
      {
        closeInstruction: closeInstruction("typeclaw"),
        episode: null,
        limits: preset.limits,
      },
    ),
  );
}

const incomplete = (todos: Todo[]) =>
  todos.some((t) => t.status !== "completed" && t.status !== "cancelled");

/** Nothing ever nudges: the agent stops when it stops. */
export class NoContinuation implements Policy {
  readonly name = "none";
  episodeBudget() {
    return Number.POSITIVE_INFINITY;
  }
  async userTurn() {}
  async turnEnded() {}
  async restarted() {}
  async idle() {
    return null;
  }
}

/**
 * Seed 001's enforcer: nudge at every idle while anything is incomplete,
 * unless background work runs or recovery is active. No budget, no memory.
 */
export class NaiveEnforcer implements Policy {
  readonly name = "naive";
  episodeBudget() {
    return Number.POSITIVE_INFINITY;
  }
  async userTurn() {}
  async turnEnded() {}
  async restarted() {}
  async idle(view: IdleView) {
    if (view.signals.backgroundWork || view.signals.recovering) return null;
    return incomplete(view.todos) ? baselineNudgeTokens(view.todos) : null;
  }
}

/**
 * Seed 003's enforcer: once per cycle (reset by the next assistant message),
 * skipping the idle right after an error or interrupt. In memory only.
 */
export class OncePerCycle implements Policy {
  readonly name = "once-per-cycle";
  #reminded = false;
  #errored = false;
  episodeBudget() {
    return Number.POSITIVE_INFINITY;
  }
  async userTurn() {
    this.#reminded = false;
  }
  async turnEnded(stopReason: StopReason) {
    this.#reminded = false;
    this.#errored =
      stopReason === "aborted" || stopReason === "error" || stopReason === "transient_error";
  }
  async restarted() {
    this.#reminded = false;
    this.#errored = false;
  }
  async idle(view: IdleView) {
    const bypass = this.#errored || view.signals.recovering;
    this.#errored = false;
    if (bypass || this.#reminded || !incomplete(view.todos)) return null;
    this.#reminded = true;
    return baselineNudgeTokens(view.todos);
  }
}

/** A preset on the real engine and runtime, over a real store shared across restarts. */
export class EnginePolicy implements Policy {
  readonly name: string;
  #runtime: ContinuationRuntime;
  readonly #make: () => ContinuationRuntime;

  /**
   * With `check`, the runtime has `verify` (when the list is finished), and
   * `check` stands for the project's command: the sim knows the truth.
   */
  constructor(
    preset: PresetName,
    readonly store: Store,
    readonly scope: Scope,
    clock: () => number,
    check?: () => CheckResult,
  ) {
    this.name = check === undefined ? preset : `${preset}+verify`;
    const verify =
      check === undefined
        ? undefined
        : {
            settings: { command: "npm test", timeoutMs: 600_000, when: "finished" as const },
            cwd: "/sim",
            cacheDir: "/sim",
            check: async () => ({ result: check(), ran: true, via: "ran" as const }),
          };
    this.#make = () =>
      new ContinuationRuntime({ store, preset, now: clock, ...(verify ? { verify } : {}) });
    this.#runtime = this.#make();
  }

  episodeBudget() {
    return this.#runtime.limits.maxAutoTurns;
  }
  async userTurn(todos: Todo[]) {
    // The store holds the list the user sees when speaking.
    await this.#runtime.setTodos(
      this.scope,
      todos.map((t) => ({ ...t })),
    );
    await this.#runtime.turnStarted(this.scope, { real: true });
  }
  async turnEnded(
    stopReason: StopReason,
    usage: TokenUsage,
    injected: boolean,
    restartCaused: boolean,
  ) {
    await this.#runtime.turnEnded(this.scope, { stopReason, usage, injected, restartCaused });
  }
  async restarted() {
    this.#runtime = this.#make();
    await this.#runtime.armRestartKick(this.scope);
  }
  async idle(view: IdleView) {
    await this.#runtime.setTodos(
      this.scope,
      view.todos.map((t) => ({ ...t })),
    );
    let tokens: number | null = null;
    await this.#runtime.runIdle(this.scope, {
      signals: view.signals,
      trigger: "sim",
      deliver: (nudge) => {
        tokens = nudge.tokens;
      },
    });
    return tokens;
  }
}
