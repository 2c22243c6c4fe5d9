import { type PartialPrice, priceTable, priceTurn } from "../core/cost/price.js";
import { closeInstruction as dialectCloseInstruction } from "../core/dialects/close.js";
import { raiseEpisode } from "../core/engine/allowance.js";
import { decide } from "../core/engine/decide.js";
import { decisionLogEntry } from "../core/engine/log-entry.js";
import { resolveLimits, resolvePreset } from "../core/engine/presets.js";
import { nudgeDigest, parseProjectDir, withoutNudgeDigest } from "../core/engine/state.js";
import {
  armRestartKick,
  drainReminders,
  onDeliveryFailed,
  onDeliverySucceeded,
  onRealUserTurn,
  onTurnOutcome,
  pushReminder,
  setStopped,
} from "../core/engine/transitions.js";
import { decideVerification, verifyDue } from "../core/engine/verify.js";
import { formatRunTime } from "../core/explain/numbers.js";
import { type Notification, type NotifyEvent, notificationsFor } from "../core/notify/events.js";
import {
  estimateTokens,
  renderNudge,
  renderVerificationNudge,
  verificationSection,
} from "../core/nudge/index.js";
import { emptyList } from "../core/todo/model.js";
import { parseTodoList } from "../core/todo/parse.js";
import { sameSummaryInput, summarize } from "../core/todo/summary.js";
import type {
  Allowance,
  CheckResult,
  ContinuationMode,
  ContinuationState,
  Decision,
  DecisionLogEntry,
  DialectName,
  Episode,
  HostSignals,
  Limits,
  NudgeStyle,
  Preset,
  PresetName,
  PriceTable,
  Reminder,
  Scope,
  ScopeSnapshot,
  SkipReason,
  StopReason,
  Store,
  Todo,
  TodoList,
  TodoSummary,
  TodoTool,
  TokenUsage,
  ToolResult,
  VerifySettings,
} from "../core/types.js";
import {
  type VerifyOutcome,
  type VerifyProjectOptions,
  verifyProject,
} from "../verify/verify-project.js";
import { completeUsage } from "./classify.js";

/** What a scopeless caller (subagent, system task, unknown origin) gets from a todo tool. */
export const NO_SCOPE_NOTICE =
  "Todo tools are not available here: this session has no todo list of its own " +
  "(subagents and system tasks report to their parent). Nothing was written.";

export interface RuntimeOptions {
  store: Store;
  /** Named bundle of limits and timings; default "default". */
  preset?: PresetName;
  /** Overrides on top of the preset's limits (validated). */
  limits?: Partial<Limits>;
  nudgeStyle?: NudgeStyle;
  /** Which tool dialect the nudge tells the model to use; default: the preset's. */
  dialect?: DialectName;
  /** Overrides the dialect's "how to close an item" line (hosts with their own tools). */
  closeInstruction?: string;
  /** Clock, injectable for tests. */
  now?: () => number;
  /** Called after every decision is persisted (for host logging). */
  onDecision?: (scope: Scope, entry: DecisionLogEntry) => void;
  /**
   * The project's own check (a trusted config's `verify`): when the agent
   * stops with nothing actionable left, `runIdle` runs it in `cwd` (cached per
   * working tree in `cacheDir`) and a failure nudges. Absent: no check.
   */
  verify?: VerifyOptions;
  /**
   * `advise`: every decision is made and recorded as usual, but a nudge is
   * never delivered (`deliver` is not called; the log marks the entry
   * `advise`). Default `enforce`.
   */
  mode?: ContinuationMode;
  /** USD per million tokens by model, over the package's table (for `maxCostUsd`). */
  prices?: Record<string, PartialPrice>;
  /**
   * Notifications (a trusted config's `notify`): the events a decision
   * raises are recorded as sent in the state it persists, then handed to
   * `send`, at most once per event per episode. Absent: none.
   */
  notify?: RuntimeNotify | null;
  /**
   * The project folder the host's session works in: recorded in the scope's
   * state (for the dashboard and `show`) when it differs. Absent: none recorded.
   */
  projectDir?: string;
  /**
   * The preset the host was told to use (a hook command's `--preset`), recorded in the scope's
   * state so that readers (`why`, `show`, the dashboard) judge the scope by it as the host does.
   * Absent: none recorded (readers use the project file's preset, else the defaults).
   */
  presetOption?: PresetName;
  /**
   * Record each nudge's digest with its decision (`ContinuationState.nudgeDigest`), for a host
   * that hands a block's reason back as the next user prompt (Copilot CLI). Default: false.
   */
  rememberNudges?: boolean;
}

/** Where the runtime hands notifications (see `createNotifier` in `notify/notifier.ts`). */
export interface RuntimeNotify {
  events: readonly NotifyEvent[];
  /** Called after the state that records them is persisted; must return at once and never throw. */
  send(scope: Scope, notifications: Notification[]): void;
}

export interface VerifyOptions {
  settings: VerifySettings;
  /** The session's project folder. */
  cwd: string;
  /** Where results and the shared lock are kept (the store folder, or a cache folder). */
  cacheDir: string;
  /**
   * What runs the check: `verifyProject` (the default). A simulation passes
   * its own, which knows whether the work is really done.
   */
  check?: (options: VerifyProjectOptions) => Promise<VerifyOutcome>;
}

export interface Nudge {
  text: string;
  chars: number;
  /** Estimated tokens (see `estimateTokens`). */
  tokens: number;
  episodeId: string;
  /** The nudge's number within its episode (1 = first). */
  autoTurn: number;
  /**
   * Set on a retry after a transient provider error: the host waits this
   * long before delivering (cancelled by any user activity meanwhile).
   */
  delayMs?: number;
}

export type IdleResult =
  | {
      action: "inject";
      nudge: Nudge;
      delivered: boolean;
      error?: unknown;
      /** Advise mode: the nudge was decided and recorded, and deliberately not delivered. */
      advised?: boolean;
    }
  | { action: "skip"; reason: SkipReason };

export interface TurnEnd {
  turnId?: string;
  stopReason: StopReason;
  usage?: Partial<TokenUsage>;
  injected?: boolean;
  restartCaused?: boolean;
  /** The host already retried this provider error itself and gave up: no retry of ours. */
  hostRetried?: boolean;
  /** The model that ran the turn, as the host names it: prices the turn for `maxCostUsd`. */
  model?: string;
}

export interface RunIdleOptions {
  /** Hands the nudge to the model; throwing counts as a failed delivery. */
  deliver: (nudge: Nudge) => Promise<void> | void;
  signals?: HostSignals | (() => HostSignals | Promise<HostSignals>);
  /** What caused this decision, for the log ("idle", "stop-hook", "wake", ...). */
  trigger?: string;
  /**
   * The check for this call only, in place of the runtime's `verify` (null:
   * no check). For one runtime serving many projects (the AI SDK adapter).
   */
  verify?: VerifyOptions | null;
  /**
   * An earlier `explain` of this decision (a countdown's preview): its summary
   * is reused when the stored list still has the same items, so one idle
   * summarizes its list once. Any difference summarizes afresh.
   */
  preview?: { todos: TodoList; summary: TodoSummary };
  /**
   * How the turn that just ended ended, when the host learns it together with
   * the idle (a Stop hook): recorded in the decision's own transaction, as
   * `turnEnded` would have, so one idle is one write.
   */
  outcome?: TurnEnd;
  /**
   * The host's whole list as it is at this idle, for hosts that keep the list
   * themselves and are read at a stop (Copilot CLI's todos table): stored in
   * the decision's own transaction, as `setTodos` would store it, and decided
   * on. One write instead of two, and the list and the decision on it land
   * together or not at all.
   */
  todos?: Todo[] | TodoList;
}

/** The stored list `todos` replaces, or null when it is the same list (nothing to write). */
type ListReplacement = (stored: TodoList) => TodoList | null;

/**
 * How a host's list replaces the stored one. Through the parser: a host's
 * malformed entry is dropped, never trusted. Hosts resend their whole list on
 * every idle; the same list is not written again.
 */
function listReplacement(todos: Todo[] | TodoList): ListReplacement {
  const list = parseTodoList(Array.isArray(todos) ? { ...emptyList(), todos } : todos);
  const text = JSON.stringify([list.todos, list.phases]);
  return (stored) => {
    const nextId = Math.max(list.nextId, stored.nextId);
    const same = nextId === stored.nextId && text === JSON.stringify([stored.todos, stored.phases]);
    return same ? null : { ...list, nextId };
  };
}

/**
 * The text of a retry after a transient provider error. It names no todo
 * item: the interrupted turn may have been the user's own request, which the
 * agent should finish, not trade for the list.
 */
export const RETRY_TEXT =
  "Your last turn was cut short by a temporary provider error (network, rate limit or overload). Carry on from where you stopped.";

/**
 * From a random start: unique whichever process, or which of the resident server's events, takes
 * the next.
 */
let turnCounter = Math.floor(Math.random() * 1_000_000);

/** A turn id unique within the process and unlikely to repeat across processes. */
function freshTurnId(now: number): string {
  turnCounter = (turnCounter + 1) % 1_000_000;
  return `t${now.toString(36)}-${process.pid.toString(36)}-${turnCounter.toString(36)}`;
}

/**
 * The stateful shell around the pure engine: it records turns, decides and
 * persists atomically per scope, and only then delivers. Every method is a
 * single `store.transact`, so outcome recording and the idle decision for one
 * scope never race, within a process or across processes.
 */
export class ContinuationRuntime {
  readonly store: Store;
  readonly dialect: DialectName;
  readonly closeInstruction: string;
  readonly #now: () => number;
  readonly #onDecision: RuntimeOptions["onDecision"];
  #preset: Preset;
  #limits: Limits;
  #nudgeStyle: NudgeStyle;
  #verify: VerifyOptions | null;
  #mode: ContinuationMode;
  #prices: PriceTable;
  #notify: RuntimeNotify | null;
  #projectDir: string | undefined;
  #presetOption: PresetName | undefined;
  #rememberNudges: boolean;

  constructor(options: RuntimeOptions) {
    this.store = options.store;
    this.#preset = resolvePreset(options.preset);
    this.#limits = resolveLimits(this.#preset.limits, options.limits);
    this.#nudgeStyle = options.nudgeStyle ?? this.#preset.nudgeStyle;
    this.dialect = options.dialect ?? this.#preset.dialect;
    this.closeInstruction = options.closeInstruction ?? dialectCloseInstruction(this.dialect);
    this.#now = options.now ?? Date.now;
    this.#onDecision = options.onDecision;
    this.#verify = options.verify ?? null;
    this.#mode = checkMode(options.mode);
    this.#prices = priceTable(options.prices);
    this.#notify = options.notify ?? null;
    this.#projectDir = parseProjectDir(options.projectDir);
    this.#presetOption =
      options.presetOption === undefined ? undefined : resolvePreset(options.presetOption).name;
    this.#rememberNudges = options.rememberNudges === true;
  }

  /**
   * The state with this host's project folder and preset option in it; the same object when they
   * are already there.
   */
  #withProject(state: ContinuationState): ContinuationState {
    const dir = this.#projectDir;
    const preset = this.#presetOption;
    const dirKnown = dir === undefined || state.projectDir === dir;
    const presetKnown = preset === undefined || state.presetOption === preset;
    if (dirKnown && presetKnown) return state;
    return {
      ...state,
      ...(dirKnown ? {} : { projectDir: dir }),
      ...(presetKnown ? {} : { presetOption: preset }),
    };
  }

  /** What a turn costs by this runtime's prices: USD, or null when its model has no price. */
  costOf(usage: Partial<TokenUsage> | undefined, model: string | undefined): number | null {
    return priceTurn(usage, model, this.#prices);
  }

  /** `advise`: decisions are recorded, nudges never delivered. */
  get mode(): ContinuationMode {
    return this.#mode;
  }

  get preset(): Preset {
    return this.#preset;
  }

  get limits(): Limits {
    return this.#limits;
  }

  get nudgeStyle(): NudgeStyle {
    return this.#nudgeStyle;
  }

  get verify(): VerifyOptions | null {
    return this.#verify;
  }

  /**
   * Takes new project settings (a host re-read its config file): preset,
   * limits, nudge style and the check, resolved as the constructor resolves
   * them; the store, dialect and close instruction stay. Validates before it
   * changes anything: a bad value throws and the old settings stay.
   */
  reconfigure(
    options: Pick<RuntimeOptions, "preset" | "limits" | "nudgeStyle" | "mode" | "prices"> & {
      verify?: VerifyOptions | null;
      /** Left as it is when absent (hosts that do not notify never pass it). */
      notify?: RuntimeNotify | null;
      /** Left as it is when absent (a host that learns its folder late passes it here). */
      projectDir?: string;
    },
  ): void {
    const preset = resolvePreset(options.preset);
    const limits = resolveLimits(preset.limits, options.limits);
    const mode = checkMode(options.mode);
    this.#mode = mode;
    this.#prices = priceTable(options.prices);
    this.#preset = preset;
    this.#limits = limits;
    this.#nudgeStyle = options.nudgeStyle ?? preset.nudgeStyle;
    this.#verify = options.verify ?? null;
    if (options.notify !== undefined) this.#notify = options.notify;
    if (options.projectDir !== undefined) this.#projectDir = parseProjectDir(options.projectDir);
  }

  now(): number {
    return this.#now();
  }

  /**
   * A runtime over the same store and clock that decides by other settings:
   * for a reader that judges each scope by its own project's limits.
   */
  withSettings(options: Pick<RuntimeOptions, "preset" | "limits">): ContinuationRuntime {
    return new ContinuationRuntime({ ...options, store: this.store, now: this.#now });
  }

  async #updateState(scope: Scope, fn: (state: ContinuationState) => ContinuationState) {
    await this.store.transact(scope, (snap) => ({ state: fn(snap.state), result: undefined }));
  }

  /** A real user turn resets the episode and clears the abort block; an injected one resets nothing. */
  async turnStarted(scope: Scope, turn: { real: boolean; turnId?: string }): Promise<void> {
    if (!turn.real) return;
    const now = this.#now();
    await this.store.transact(scope, (snap) => ({
      // The list as the user left it: the next episode's first nudge needs it to have moved.
      state: withoutNudgeDigest(onRealUserTurn(snap.state, now, summarize(snap.todos).fingerprint)),
      result: undefined,
    }));
  }

  /** Records how the last assistant turn ended; an abort blocks nudges unless a restart caused it. */
  async turnEnded(scope: Scope, end: TurnEnd): Promise<void> {
    const now = this.#now();
    await this.#updateState(scope, (state) =>
      this.#withProject(this.#recordOutcome(state, end, now)),
    );
  }

  #recordOutcome(state: ContinuationState, end: TurnEnd, now: number): ContinuationState {
    const outcome = {
      turnId: end.turnId ?? freshTurnId(now),
      stopReason: end.stopReason,
      endedAt: now,
      usage: completeUsage(end.usage),
      injected: end.injected === true,
      restartCaused: end.restartCaused === true,
      ...(end.hostRetried === true ? { hostRetried: true } : {}),
      ...(typeof end.model === "string" && end.model !== "" ? { model: end.model } : {}),
      costUsd: priceTurn(end.usage, end.model, this.#prices),
    };
    return onTurnOutcome(state, outcome, this.limits.tokenMode);
  }

  /** Arms the one-shot suppressor: the post-restart kick owns the next idle. */
  async armRestartKick(scope: Scope): Promise<void> {
    await this.#updateState(scope, armRestartKick);
  }

  /** The user's explicit stop: durable until `resume`. */
  async stop(scope: Scope): Promise<void> {
    await this.#updateState(scope, (state) => setStopped(state, true));
  }

  async resume(scope: Scope): Promise<void> {
    await this.#updateState(scope, (state) => setStopped(state, false));
  }

  /**
   * The user's `resume --add`: lifts a stop and adds the allowance to the
   * open episode's limits, logged as a user action naming what was added.
   * Throws (and writes nothing) when no episode is open. Returns the episode.
   */
  async raise(scope: Scope, add: Allowance, note: string): Promise<Episode> {
    const now = this.#now();
    const { episode, entry } = await this.store.transact(scope, (snap) => {
      const state = raiseEpisode(setStopped(snap.state, false), add);
      const episode = state.episode as Episode;
      const entry: DecisionLogEntry = {
        ...decisionLogEntry(
          { action: "skip", reason: "continuation-stopped", state },
          summarize(snap.todos),
          null,
          "user",
          now,
        ),
        action: "raised",
        reason: null,
        note,
      };
      return { state, log: [entry], result: { episode, entry } };
    });
    this.#onDecision?.(scope, entry);
    return episode;
  }

  /** Replaces the list, for hosts that own the todo list themselves (Claude Code, OpenCode). */
  async setTodos(scope: Scope, todos: Todo[] | TodoList): Promise<void> {
    const replace = listReplacement(todos);
    await this.store.transact(scope, (snap) => {
      const list = replace(snap.todos);
      const state = this.#withProject(snap.state);
      return {
        ...(list === null ? {} : { todos: list }),
        ...(state === snap.state ? {} : { state }),
        result: undefined,
      };
    });
  }

  /**
   * Runs a dialect tool against the stored list inside one transaction. A
   * failed write leaves the list as the tool returned it (unchanged, except
   * for the pi dialect's documented partial apply) and queues a reminder so the
   * model learns at its next turn that its progress is not recorded.
   */
  async callTool(scope: Scope | null, tool: TodoTool, input: unknown): Promise<ToolResult> {
    if (scope === null) {
      return { text: NO_SCOPE_NOTICE, isError: false, details: { noScope: true } };
    }
    const now = this.#now();
    return this.store.transact(scope, (snap) => {
      const { list, result } = tool.handler(snap.todos, input);
      if (tool.readOnly) return { result };
      const out: { todos?: TodoList; state?: ContinuationState; result: ToolResult } = { result };
      if (list !== snap.todos) out.todos = list;
      if (result.isError) {
        out.state = pushReminder(snap.state, {
          kind: "write-failed",
          text: `Your last ${tool.name} call failed, so the todo list may not show your progress. Fix the call and retry: ${firstError(result.text)}`,
          at: now,
        });
      }
      return out;
    });
  }

  #render(list: TodoList, episode: Episode): Nudge {
    const text = renderNudge(this.nudgeStyle, list, {
      closeInstruction: this.closeInstruction,
      episode,
      limits: this.limits,
    });
    return {
      text,
      chars: text.length,
      tokens: estimateTokens(text),
      episodeId: episode.id,
      autoTurn: episode.autoTurns,
    };
  }

  #retry(episode: Episode): Nudge {
    return {
      text: RETRY_TEXT,
      chars: RETRY_TEXT.length,
      tokens: estimateTokens(RETRY_TEXT),
      episodeId: episode.id,
      autoTurn: episode.autoTurns,
      delayMs: this.limits.errorBackoffMs,
    };
  }

  #decide(
    snap: ScopeSnapshot,
    signals: HostSignals,
    now: number,
    preview?: { todos: TodoList; summary: TodoSummary },
    check?: CheckResult | null,
    verify: VerifyOptions | null = this.#verify,
  ) {
    const summary =
      preview !== undefined && sameSummaryInput(preview.todos, snap.todos)
        ? preview.summary
        : summarize(snap.todos);
    let decision = decide({ state: snap.state, summary, signals, limits: this.limits, now });
    const due = verifyDue({
      settings: verify?.settings,
      decision,
      state: snap.state,
      summary,
      signals,
    });
    if (due === "halted") {
      decision = { action: "skip", reason: "verify-unchanged-failure", state: decision.state };
    } else if (due === "finished" && check != null) {
      decision = decideVerification({
        state: snap.state,
        summary,
        signals,
        limits: this.limits,
        now,
        check,
      });
    }
    let nudge: Nudge | null = null;
    if (decision.action === "inject") {
      if (decision.retry === true) nudge = this.#retry(decision.episode);
      else if (decision.verification !== undefined) {
        nudge = this.#textNudge(
          renderVerificationNudge(decision.verification, this.closeInstruction),
          decision.episode,
        );
      } else {
        nudge = this.#render(snap.todos, decision.episode);
        if (due === "with-nudge" && check?.status === "failed") {
          nudge = this.#textNudge(`${nudge.text}\n${verificationSection(check)}`, decision.episode);
        }
      }
    }
    return { summary, decision, nudge, due };
  }

  #textNudge(text: string, episode: Episode): Nudge {
    return {
      text,
      chars: text.length,
      tokens: estimateTokens(text),
      episodeId: episode.id,
      autoTurn: episode.autoTurns,
    };
  }

  /**
   * Runs the project's check when this stop calls for it, outside any store
   * transaction (it may take minutes): decided on a read of the stored state
   * with the outcome recorded, as the transaction will decide it.
   */
  async #checkIfDue(
    scope: Scope,
    signals: HostSignals,
    outcome: TurnEnd | undefined,
    verify: VerifyOptions | null,
    replace: ListReplacement | null,
  ): Promise<CheckResult | null> {
    if (verify === null) return null;
    const now = this.#now();
    const stored = await this.store.read(scope);
    // The list the decision will see: the one this idle brings, when it brings one.
    const list = replace?.(stored.todos) ?? null;
    const snap = {
      ...stored,
      ...(list === null ? {} : { todos: list }),
      ...(outcome === undefined ? {} : { state: this.#recordOutcome(stored.state, outcome, now) }),
    };
    const { due } = this.#decide(snap, signals, now, undefined, null, verify);
    if (due !== "finished" && due !== "with-nudge") return null;
    const { settings, cwd, cacheDir, check = verifyProject } = verify;
    return (await check({ settings, cwd, cacheDir, now: this.#now })).result;
  }

  /**
   * The decision `runIdle` would make on this snapshot, synchronously and
   * without touching the store: for hosts that must answer before they may
   * await (pi). The real decision is still made and persisted by `runIdle`.
   */
  preview(
    snapshot: ScopeSnapshot,
    signals: HostSignals = {},
    now: number = this.#now(),
  ): {
    decision: Decision;
    summary: TodoSummary;
    nudge: Nudge | null;
    /** Whether `runIdle` would run the project's check at this stop (see `verifyDue`). */
    due: ReturnType<typeof verifyDue>;
  } {
    return this.#decide(snapshot, signals, now);
  }

  /**
   * Dry run: what the engine would decide now. Writes nothing (the one-shot
   * kick is not consumed). `todos` is the list it decided on; pass the result
   * as `runIdle`'s `preview` to spare a second summary.
   */
  async explain(
    scope: Scope,
    signals: HostSignals = {},
  ): Promise<{ decision: Decision; summary: TodoSummary; nudge: Nudge | null; todos: TodoList }> {
    const snap = await this.store.read(scope);
    return { ...this.#decide(snap, signals, this.#now()), todos: snap.todos };
  }

  /**
   * The idle path. Decides and persists in one transaction (the store's lock
   * makes the decision see the latest state, so concurrent idles for one scope
   * inject once), THEN delivers. A crash between the two can only waste one
   * budget slot; it can never deliver twice.
   */
  async runIdle(scope: Scope, options: RunIdleOptions): Promise<IdleResult> {
    const signals =
      typeof options.signals === "function" ? await options.signals() : (options.signals ?? {});
    const trigger = options.trigger ?? "idle";
    const { outcome } = options;
    const replace = options.todos === undefined ? null : listReplacement(options.todos);
    const verify = options.verify === undefined ? this.#verify : options.verify;
    const check = await this.#checkIfDue(scope, signals, outcome, verify, replace);
    const now = this.#now();
    const notify = this.#notify;
    const { decision, nudge, entry, notifications } = await this.store.transact(scope, (stored) => {
      const list = replace?.(stored.todos) ?? null;
      const snap = {
        ...stored,
        ...(list === null ? {} : { todos: list }),
        ...(outcome === undefined
          ? {}
          : { state: this.#recordOutcome(stored.state, outcome, now) }),
      };
      const made = this.#decide(snap, signals, now, options.preview, check, verify);
      const entry = decisionLogEntry(made.decision, made.summary, made.nudge, trigger, now);
      const note = made.due === "finished" || made.due === "with-nudge" ? checkNote(check) : null;
      if (note !== null) entry.note = note;
      if (this.#mode === "advise") entry.advise = true;
      // Persist before deliver: the events are recorded as sent in this very write.
      const notified =
        notify === null
          ? { notifications: [], state: made.decision.state }
          : notificationsFor({
              decision: made.decision,
              before: snap.state,
              summary: made.summary,
              limits: this.limits,
              now,
              wanted: notify.events,
              list: snap.todos,
            });
      if (notified.notifications.length > 0) {
        const sent = `notified: ${notified.notifications.map((n) => n.event).join(", ")}`;
        entry.note = entry.note === undefined ? sent : `${entry.note}; ${sent}`;
      }
      const sent =
        this.#rememberNudges && made.decision.action === "inject" && made.nudge !== null
          ? { ...notified.state, nudgeDigest: nudgeDigest(made.nudge.text) }
          : notified.state;
      return {
        ...(list === null ? {} : { todos: list }),
        state: this.#withProject(sent),
        log: [entry],
        result: { ...made, entry, notifications: notified.notifications },
      };
    });
    this.#onDecision?.(scope, entry);
    if (notify !== null && notifications.length > 0) {
      try {
        notify.send(scope, notifications);
      } catch {
        // A notifier's fault never fails the stop it reports.
      }
    }
    if (decision.action === "skip") return { action: "skip", reason: decision.reason };
    if (nudge === null) throw new Error("runIdle: an inject decision rendered no nudge");
    // Advise mode: the decision stands in the state and the log; nothing reaches the agent.
    if (entry.advise === true) return { action: "inject", nudge, delivered: false, advised: true };
    try {
      await options.deliver(nudge);
    } catch (error) {
      await this.#recordDelivery(scope, nudge, error);
      return { action: "inject", nudge, delivered: false, error };
    }
    // A success only has something to record when earlier deliveries failed.
    if ((decision.state.episode?.failures ?? 0) > 0) await this.#recordDelivery(scope, nudge, null);
    return { action: "inject", nudge, delivered: true };
  }

  async #recordDelivery(scope: Scope, nudge: Nudge, error: unknown): Promise<void> {
    const now = this.#now();
    if (error === null) {
      await this.#updateState(scope, onDeliverySucceeded);
      return;
    }
    const failure: DecisionLogEntry = {
      at: now,
      action: "delivery-failed",
      reason: null,
      episodeId: nudge.episodeId,
      autoTurns: nudge.autoTurn,
      tokens: 0,
      stagnation: 0,
      actionable: 0,
      blocked: 0,
      nudgeChars: nudge.chars,
      nudgeTokens: nudge.tokens,
      trigger: "delivery",
      delivered: false,
      note: firstLine(error instanceof Error ? error.message : String(error)),
    };
    await this.store.transact(scope, (snap) => ({
      state: onDeliveryFailed(snap.state, now),
      log: [failure],
      result: undefined,
    }));
    this.#onDecision?.(scope, failure);
  }

  /**
   * Logs a skip decided outside the engine (the wake loop's budget), on the
   * stored list and state, which it leaves as they are.
   */
  async recordSkip(
    scope: Scope,
    reason: SkipReason,
    trigger: string,
    note?: string,
  ): Promise<void> {
    const now = this.#now();
    const entry = await this.store.transact(scope, (snap) => {
      const skip: Decision = { action: "skip", reason, state: snap.state };
      const entry = decisionLogEntry(skip, summarize(snap.todos), null, trigger, now);
      if (note !== undefined) entry.note = note;
      return { log: [entry], result: entry };
    });
    this.#onDecision?.(scope, entry);
  }

  async pushReminder(scope: Scope, reminder: { kind: Reminder["kind"]; text: string }) {
    const now = this.#now();
    await this.#updateState(scope, (state) => pushReminder(state, { ...reminder, at: now }));
  }

  /** Takes every queued reminder, oldest first, for the model's next turn. */
  async drainReminders(scope: Scope): Promise<Reminder[]> {
    return this.store.transact(scope, (snap) => {
      if (snap.state.reminders.length === 0) return { result: [] };
      const { state, reminders } = drainReminders(snap.state);
      return { state, result: reminders };
    });
  }
}

/** The log's line for a check: `verified in 1.2 s`, `check failed: exit 1 ...`. */
export function checkNote(check: CheckResult | null): string | null {
  if (check == null) return null;
  const took = formatRunTime(check.durationMs);
  const cached = check.cached === true ? ", unchanged tree" : "";
  switch (check.status) {
    case "passed":
      return `verified in ${took}${cached} (${check.command})`;
    case "failed":
      return `check failed: exit ${check.exitCode ?? check.signal ?? "?"} in ${took}${cached} (${check.command})`;
    case "timed-out":
      return `check timed out after ${took} (${check.command}); not nudged`;
    case "error":
      return `check could not start (${check.command}): ${firstLine(check.outputTail)}`;
  }
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/**
 * The first error a refusal names: its first line, or, when that line only
 * heads a list (`Errors:` then `- ...`, as the pi dialect writes), the
 * first item of the list. Cut at 300 characters.
 */
export function firstError(text: string): string {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const first = lines[0] ?? "";
  const next = lines[1];
  const line =
    first.endsWith(":") && next !== undefined && /^[-*] /.test(next) ? next.slice(2) : first;
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

export { decisionLogEntry };

/** A mode from options: absent is `enforce`; anything else but the two names is refused. */
function checkMode(mode: unknown): ContinuationMode {
  if (mode === undefined || mode === "enforce") return "enforce";
  if (mode === "advise") return "advise";
  throw new Error(`mode must be "enforce" or "advise", got ${JSON.stringify(mode)}`);
}
