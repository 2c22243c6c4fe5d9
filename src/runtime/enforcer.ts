import type { HostSignals, Scope, StopReason, Todo, TokenUsage } from "../core/types.js";
import { classifyHostError } from "./classify.js";
import type { ContinuationRuntime, IdleResult, Nudge } from "./runtime.js";

export interface DeliveryContext {
  /** Agent of the last assistant message, so a nudge never switches the agent. */
  agent?: string;
  /** Model of the last assistant message, likewise preserved. */
  model?: unknown;
}

export interface IdleEnforcerOptions {
  runtime: ContinuationRuntime;
  scopeFor: (sessionId: string) => Scope | null;
  deliver: (sessionId: string, nudge: Nudge, context: DeliveryContext) => Promise<void>;
  /** Host-owned todos, refreshed into the store before each decision. */
  fetchTodos?: (sessionId: string) => Promise<Todo[] | null>;
  /** Background work, agent exclusion, pending questions: facts only the host knows. */
  signals?: (sessionId: string) => HostSignals | Promise<HostSignals>;
  /** Idle events closer together than this merge into one decision. Default 200 ms. */
  debounceMs?: number;
  /**
   * Delay before a nudge is delivered, counted from the (debounced) idle and
   * cancelled by any user activity. Default 0.
   */
  countdownMs?: number;
  /** Shows the countdown (a toast); called once with the time left of it. */
  onCountdown?: (sessionId: string, remainingMs: number) => void | Promise<void>;
  /** Called with the result of every decision the enforcer ran. */
  onResult?: (sessionId: string, result: IdleResult) => void;
  /** Internal failures (the host stays up; nothing is injected). */
  onError?: (sessionId: string, error: unknown) => void;
  /** Sessions with no event for this long are forgotten. Default 30 minutes. */
  sessionTtlMs?: number;
  /** Remove a deleted session's stored list and state too. Default true. */
  forgetDeletedSessions?: boolean;
  /**
   * How long the host may take to answer a question asked before a decision
   * (the list, the signals, showing the countdown). Past it the idle is
   * dropped as an error, nothing is sent, and the next idle asks again: a host
   * call that never returns must not silence a session for good. Delivery has
   * no limit: a nudge that may still arrive is never counted as failed.
   * Default 30 s.
   */
  hostCallTimeoutMs?: number;
}

const DEFAULT_HOST_CALL_TIMEOUT_MS = 30_000;

/** Per-session bookkeeping. Kept small: a busy server tracks thousands of these. */
interface Track {
  /** Bumped by user activity, errors and deletion: in-flight work started earlier gives up. */
  epoch: number;
  debounce: NodeJS.Timeout | null;
  cancelCountdown: (() => void) | null;
  running: boolean;
  /**
   * An error interrupted a pending idle check (its countdown, backoff or
   * decision): the idle that check answered will not come again, so the
   * error's outcome is decided anew once the interrupted check has let go.
   */
  redecide: boolean;
  /** Once per cycle: set after a delivery, cleared by the next assistant message. */
  reminded: boolean;
  compactionGuard: boolean;
  recovering: boolean;
  agent: string | undefined;
  model: unknown;
  lastSeen: number;
}

class HostCallTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms; nothing was sent`);
    this.name = "HostCallTimeout";
  }
}

/** A nudge withdrawn after its decision was recorded: something else spoke first. Logged as not delivered. */
export class CancelledDelivery extends Error {
  constructor(why = "the nudge was cancelled by user activity before delivery") {
    super(why);
    this.name = "CancelledDelivery";
  }
}

/**
 * The host-neutral idle enforcer (seeds 001 and 003) for hosts that emit
 * session events. Host events go in; decisions go through the durable engine,
 * so budgets, suppressors and the decision log apply exactly as elsewhere. The
 * in-memory part only debounces, cancels and remembers the last agent/model.
 */
export class IdleEnforcer {
  readonly #o: IdleEnforcerOptions;
  readonly #tracks = new Map<string, Track>();
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #sweeper: NodeJS.Timeout;
  #disposed = false;

  constructor(options: IdleEnforcerOptions) {
    this.#o = { ...options };
    const ttl = options.sessionTtlMs ?? 30 * 60_000;
    this.#sweeper = setInterval(() => this.#prune(ttl), Math.max(1000, Math.floor(ttl / 2)));
    this.#sweeper.unref();
  }

  /**
   * New timings, for a host that re-read its settings (a project config
   * edited while it runs): used from the next idle on.
   */
  configure(timing: Pick<IdleEnforcerOptions, "debounceMs" | "countdownMs">): void {
    if (timing.debounceMs !== undefined) this.#o.debounceMs = timing.debounceMs;
    if (timing.countdownMs !== undefined) this.#o.countdownMs = timing.countdownMs;
  }

  /** Sessions currently tracked (for tests and memory benchmarks). */
  get trackedSessions(): number {
    return this.#tracks.size;
  }

  #track(sessionId: string): Track {
    let track = this.#tracks.get(sessionId);
    if (!track) {
      track = {
        epoch: 0,
        debounce: null,
        cancelCountdown: null,
        running: false,
        redecide: false,
        reminded: false,
        compactionGuard: false,
        recovering: false,
        agent: undefined,
        model: undefined,
        lastSeen: 0,
      };
      this.#tracks.set(sessionId, track);
    }
    track.lastSeen = this.#o.runtime.now();
    return track;
  }

  #cancelPending(track: Track): void {
    if (track.debounce) clearTimeout(track.debounce);
    track.debounce = null;
    track.cancelCountdown?.();
    track.cancelCountdown = null;
    track.redecide = false;
    track.epoch++;
  }

  #spawn(sessionId: string, work: Promise<unknown>): void {
    const guarded = work.catch((error) => this.#o.onError?.(sessionId, error));
    this.#inflight.add(guarded);
    void guarded.finally(() => this.#inflight.delete(guarded));
  }

  /** The session went idle. Debounced: duplicates within the window merge into one decision. */
  idle(sessionId: string): void {
    if (this.#disposed) return;
    const track = this.#track(sessionId);
    if (track.debounce) clearTimeout(track.debounce);
    track.debounce = setTimeout(() => {
      track.debounce = null;
      this.#spawn(sessionId, this.#check(sessionId, track));
    }, this.#o.debounceMs ?? 200);
    track.debounce.unref();
  }

  /**
   * The turn ended in an error (also one reported during a countdown, which it
   * cancels): an interrupt blocks nudges, a transient provider error may be
   * retried once the session idles, any other error parks the scope.
   */
  async error(sessionId: string, error: unknown): Promise<void> {
    const track = this.#track(sessionId);
    const interrupted = track.debounce !== null || track.cancelCountdown !== null || track.running;
    this.#cancelPending(track);
    // The error ended the turn our nudge started: the idle that follows is judged (and logged),
    // even when the host reports the failed assistant message only after that idle.
    track.reminded = false;
    const scope = this.#o.scopeFor(sessionId);
    if (!scope) return;
    await this.#o.runtime.turnEnded(scope, { stopReason: classifyHostError(error) });
    // Reported while a countdown ran (OpenCode may send the error after the
    // idles): deciding again keeps the single retry a transient error is owed,
    // and puts a park on record. A later idle merges into this one.
    if (interrupted && !this.#disposed) {
      track.redecide = true;
      this.idle(sessionId);
    }
  }

  /**
   * A user message. A genuine one cancels any pending nudge and is a real user
   * turn (new episode, abort block cleared); our own injected prompt is not.
   */
  async userMessage(sessionId: string, info: { injected?: boolean } = {}): Promise<void> {
    const track = this.#track(sessionId);
    if (info.injected) return;
    this.#cancelPending(track);
    track.reminded = false;
    const scope = this.#o.scopeFor(sessionId);
    // The stored list (kept in step by the host's list events) is the one the next nudge needs moved.
    if (scope) await this.#o.runtime.turnStarted(scope, { real: true });
  }

  /** An assistant message: remembers agent and model, resets the once-per-cycle guard, records the outcome. */
  async assistantMessage(
    sessionId: string,
    info: {
      agent?: string;
      model?: unknown;
      stopReason?: StopReason;
      usage?: Partial<TokenUsage>;
      turnId?: string;
      injected?: boolean;
    } = {},
  ): Promise<void> {
    const track = this.#track(sessionId);
    if (info.agent !== undefined) track.agent = info.agent;
    if (info.model !== undefined) track.model = info.model;
    track.reminded = false;
    const scope = this.#o.scopeFor(sessionId);
    if (scope && info.stopReason) {
      await this.#o.runtime.turnEnded(scope, {
        stopReason: info.stopReason,
        ...(info.usage ? { usage: info.usage } : {}),
        ...(info.turnId ? { turnId: info.turnId } : {}),
        ...(info.injected !== undefined ? { injected: info.injected } : {}),
        ...modelName(info.model),
      });
    }
  }

  /** After a compaction the next idle belongs to the summary turn, not to the todo list. */
  compacted(sessionId: string): void {
    this.#track(sessionId).compactionGuard = true;
  }

  /** Drops every timer and all in-memory state of the session (and, by default, its stored data). */
  deleted(sessionId: string): void {
    const track = this.#tracks.get(sessionId);
    if (track) this.#cancelPending(track);
    this.#tracks.delete(sessionId);
    const scope = this.#o.scopeFor(sessionId);
    if (scope && this.#o.forgetDeletedSessions !== false) {
      this.#spawn(sessionId, this.#o.runtime.store.deleteScope(scope));
    }
  }

  /** A session-recovery routine started or finished restoring this session. */
  recovering(sessionId: string, active: boolean): void {
    const track = this.#track(sessionId);
    track.recovering = active;
    if (active) this.#cancelPending(track);
  }

  /** Resolves when no timer, countdown or decision is pending (for tests and shutdown). */
  async settle(): Promise<void> {
    for (;;) {
      const pendingTimer = [...this.#tracks.values()].some((t) => t.debounce !== null);
      if (this.#inflight.size === 0 && !pendingTimer) return;
      if (this.#inflight.size > 0) await Promise.all([...this.#inflight]);
      else await new Promise((r) => setTimeout(r, 10));
    }
  }

  dispose(): void {
    this.#disposed = true;
    clearInterval(this.#sweeper);
    for (const track of this.#tracks.values()) this.#cancelPending(track);
    this.#tracks.clear();
  }

  #prune(ttlMs: number): void {
    const cutoff = this.#o.runtime.now() - ttlMs;
    for (const [id, track] of this.#tracks) {
      const busy = track.running || track.debounce !== null || track.cancelCountdown !== null;
      if (!busy && track.lastSeen < cutoff) this.#tracks.delete(id);
    }
  }

  /** A host call made before a decision, given `hostCallTimeoutMs` to answer. */
  #ask<T>(what: string, call: () => T | Promise<T>): Promise<T> {
    const ms = this.#o.hostCallTimeoutMs ?? DEFAULT_HOST_CALL_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HostCallTimeout(what, ms)), ms);
      timer.unref();
    });
    return Promise.race([Promise.resolve().then(call), expired]).finally(() => clearTimeout(timer));
  }

  async #signals(sessionId: string, track: Track): Promise<HostSignals> {
    const host = (await this.#ask("the host's signals", () => this.#o.signals?.(sessionId))) ?? {};
    return track.recovering ? { ...host, recovering: true } : host;
  }

  /** Waits out the countdown; false when user activity cancelled it. */
  #countdown(track: Track, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        track.cancelCountdown = null;
        resolve(true);
      }, ms);
      timer.unref();
      track.cancelCountdown = () => {
        clearTimeout(timer);
        resolve(false);
      };
    });
  }

  /** One debounced idle: every condition is re-checked after each await and right before delivery. */
  async #check(sessionId: string, track: Track): Promise<void> {
    // A check still running when asked to decide again re-schedules itself when it ends.
    if (track.running || this.#disposed) return;
    const scope = this.#o.scopeFor(sessionId);
    if (!scope) return;
    track.running = true;
    track.redecide = false;
    // The countdown runs from here: fetching the list and the first look at the
    // decision happen during it, not before it.
    const startedAt = Date.now();
    const epoch = track.epoch;
    const stale = () => this.#disposed || track.epoch !== epoch || !this.#tracks.has(sessionId);
    try {
      if (track.reminded) return;
      if (this.#o.fetchTodos) {
        const fetchTodos = this.#o.fetchTodos;
        const todos = await this.#ask("reading the todo list", () => fetchTodos(sessionId));
        if (stale()) return;
        if (todos) await this.#o.runtime.setTodos(scope, todos);
      }
      let signals = await this.#signals(sessionId, track);
      if (track.compactionGuard) {
        track.compactionGuard = false;
        signals = { ...signals, recovering: true };
      }
      if (stale()) return;
      const countdownMs = this.#o.countdownMs ?? 0;
      let preview: Awaited<ReturnType<ContinuationRuntime["explain"]>> | undefined;
      // Advise mode delivers nothing, so there is nothing to count down to.
      if (countdownMs > 0 && !signals.recovering && this.#o.runtime.mode !== "advise") {
        preview = await this.#o.runtime.explain(scope, signals);
        if (stale()) return;
        // A retry after a provider error waits out its own backoff instead.
        if (preview.decision.action === "inject" && preview.decision.retry !== true) {
          const left = () => Math.max(0, countdownMs - (Date.now() - startedAt));
          await this.#ask("showing the countdown", () => this.#o.onCountdown?.(sessionId, left()));
          // A cancel that landed while the notice was shown must not wait out the countdown.
          if (stale()) return;
          if (!(await this.#countdown(track, left())) || stale()) return;
          signals = await this.#signals(sessionId, track);
          if (stale()) return;
        }
      }
      const result = await this.#o.runtime.runIdle(scope, {
        signals,
        trigger: "idle",
        ...(preview ? { preview } : {}),
        deliver: async (nudge) => {
          if (stale()) throw new CancelledDelivery();
          // A retry after a provider error waits out its backoff; user activity cancels it.
          const delay = nudge.delayMs ?? 0;
          if (delay > 0 && (!(await this.#countdown(track, delay)) || stale())) {
            throw new CancelledDelivery();
          }
          await this.#o.deliver(sessionId, nudge, { agent: track.agent, model: track.model });
        },
      });
      if (result.action === "inject" && result.delivered) track.reminded = true;
      this.#o.onResult?.(sessionId, result);
    } finally {
      track.running = false;
      if (track.redecide && !this.#disposed && this.#tracks.get(sessionId) === track) {
        this.idle(sessionId);
      }
    }
  }
}

/** The model an OpenCode message names (`{ providerID, modelID }`), for pricing the turn. */
function modelName(model: unknown): { model?: string } {
  if (typeof model !== "object" || model === null) return {};
  const id = (model as { modelID?: unknown }).modelID;
  return typeof id === "string" && id !== "" ? { model: id } : {};
}
