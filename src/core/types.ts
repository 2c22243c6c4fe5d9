/**
 * The shared vocabulary of todo-continuation. Every layer (pure core, stores,
 * runtime, hosts) speaks in these types, so they live in one file: reading it
 * should tell you how the whole product fits together.
 */

// ---------------------------------------------------------------------------
// Todos
// ---------------------------------------------------------------------------

/**
 * One status model for every dialect. `blocked` carries a reason and never
 * drives continuation: a list holding only blocked items parks, it does not nag.
 */
export type TodoStatus = "pending" | "in_progress" | "completed" | "cancelled" | "blocked";

export const TODO_STATUSES: readonly TodoStatus[] = [
  "pending",
  "in_progress",
  "completed",
  "cancelled",
  "blocked",
];

export type TodoPriority = "high" | "medium" | "low";

export interface Todo {
  content: string;
  status: TodoStatus;
  /** Stable identifier where the dialect has one (parley ids, Claude Code task ids). */
  id?: string;
  priority?: TodoPriority;
  /** Phase name (pi dialect); phase order lives on the list. */
  phase?: string;
  /** Free-form notes, oldest first. */
  notes?: string[];
  /** Required when `status === "blocked"`. */
  blockedReason?: string;
  /** Present-tense label some hosts show while the item runs ("Running tests"). */
  activeForm?: string;
}

export interface TodoList {
  todos: Todo[];
  /**
   * Phase order, including phases that currently hold no tasks. Todos whose
   * `phase` is not listed here are shown after the listed phases.
   */
  phases: string[];
  /** Next numeric id the parley dialect hands out; ids are never reused within a list. */
  nextId: number;
}

/** Counts and the canonical fingerprint of a list (`summarize`), computed once per decision. */
export interface TodoSummary {
  total: number;
  /** pending + in_progress: the only items that drive continuation. */
  actionable: number;
  blocked: number;
  completed: number;
  cancelled: number;
  /** Not completed and not cancelled (actionable + blocked). */
  incomplete: number;
  /** 64-bit hash (16 hex characters) of the canonical incomplete set; see `fingerprintIncomplete`. */
  fingerprint: string;
}

// ---------------------------------------------------------------------------
// Scopes: the durable identity a list hangs off
// ---------------------------------------------------------------------------

export type Origin =
  | { kind: "tui" }
  | {
      kind: "channel";
      adapter: string;
      workspace: string | null;
      chat: string;
      thread: string | null;
    }
  | { kind: "cron"; jobId: string }
  | { kind: "session"; host: string; sessionId: string }
  | { kind: "subagent"; parent?: Origin }
  | { kind: "system" };

/**
 * A resolved scope. `key` is a traversal-safe relative key whose only `/`
 * separators are the ones the scheme intends; each component is encoded.
 */
export interface Scope {
  key: string;
  kind: "tui" | "channel" | "cron" | "session";
}

// ---------------------------------------------------------------------------
// Turns and their outcomes
// ---------------------------------------------------------------------------

/**
 * How the last assistant turn ended, normalized across hosts. `unknown` is the
 * fail-closed value: anything a classifier does not recognize maps here and the
 * engine refuses to inject after it.
 */
export type StopReason =
  | "stop"
  | "tool_use"
  | "length"
  | "error"
  /** A provider error a later attempt may not hit: network, rate limit, overloaded. */
  | "transient_error"
  | "aborted"
  | "context_overflow"
  | "unknown";

export interface TokenUsage {
  /** Input tokens NOT served from cache. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Everything the provider billed or counted, cached input included. */
  total: number;
}

export interface TurnOutcome {
  turnId: string;
  stopReason: StopReason;
  endedAt: number;
  usage: TokenUsage;
  /** True when this turn was started by one of our nudges. */
  injected: boolean;
  /** The abort was caused by a process restart, not by the user. */
  restartCaused: boolean;
  /**
   * The host ran its own retries on this provider error and gave up (pi):
   * the engine adds no retry of its own, a transient error parks at once.
   */
  hostRetried?: boolean;
  /** The model that ran this turn, as the host names it (for pricing); absent when the host does not say. */
  model?: string;
  /**
   * What this turn cost in USD, priced by the runtime from `usage` and
   * `model`; null when it used tokens and its model has no price (unknown,
   * never free). Absent: not priced (a turn with no tokens costs nothing).
   */
  costUsd?: number | null;
}

// ---------------------------------------------------------------------------
// Continuation state (persisted per scope)
// ---------------------------------------------------------------------------

/**
 * An episode is the unit a budget applies to: it opens with the first nudge
 * after a real user turn and ends only at the next real user turn.
 */
export interface Episode {
  id: string;
  startedAt: number;
  /** Nudges injected in this episode. */
  autoTurns: number;
  /** Spend folded in from turn outcomes (see `TokenMode`). */
  tokens: number;
  /** Consecutive decisions that saw no progress. */
  stagnation: number;
  lastFingerprint: string | null;
  /** Low-water mark of the incomplete count seen in this episode (strict progress). */
  minIncomplete: number | null;
  /** High-water mark of the completed count seen in this episode (strict progress). */
  maxCompleted: number | null;
  /** Turn ids whose spend has been folded in, so one outcome is never counted twice. */
  lastCountedTurnId: string | null;
  /** Consecutive failed deliveries (drives the cooldown). */
  failures: number;
  lastInjectionAt: number | null;
  lastFailureAt: number | null;
  /**
   * The turn outcome the latest nudge answered: the next nudge needs a newer
   * one, so duplicate idles for one turn never inject twice. A failed delivery
   * clears it (that outcome is still unanswered). Absent in older documents.
   */
  answeredTurnId?: string | null;
  /**
   * Retries after a transient provider error since the last turn that ended
   * cleanly. Absent in older documents (reads as 0).
   */
  errorRetries?: number;
  /** USD of the priced turns folded into this episode. Absent in older documents (reads as 0). */
  costUsd?: number;
  /** Turns folded into this episode whose cost is unknown (tokens used, model without a price). */
  unpricedTurns?: number;
  /** The model of the last turn folded in, as the host named it. */
  model?: string;
  /**
   * Extra allowance the user granted this episode (`resume --add`), added to
   * each limit; the next real user turn opens a fresh episode without it.
   */
  raised?: Allowance;
}

/** Amounts added on top of the limits of one episode (`resume --add`). */
export interface Allowance {
  nudges: number;
  tokens: number;
  timeMs: number;
  costUsd: number;
}

/** Whether a host acts on its decisions (`enforce`) or only records them (`advise`). */
export type ContinuationMode = "enforce" | "advise";

/** USD per million tokens, per kind of token. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Prices by model name. */
export type PriceTable = Record<string, ModelPrice>;

/** A message queued for the model's next turn (user edits, failed writes, channel delivery). */
export interface Reminder {
  kind: "user-edit" | "write-failed" | "channel" | "custom";
  text: string;
  at: number;
}

export interface ContinuationState {
  version: 1;
  episode: Episode | null;
  lastOutcome: TurnOutcome | null;
  /** One-shot: the post-restart kick owns the next idle. */
  restartKickArmed: boolean;
  /** Durable: set by a user abort, cleared only by a real user turn. */
  userAbortBlocked: boolean;
  /** The user said stop; durable until resumed. */
  stopped: boolean;
  reminders: Reminder[];
  /** When the last real user turn started (ms), or null. */
  lastUserTurnAt: number | null;
  /**
   * Fingerprint of the list when the last real user turn started: the first
   * nudge after it needs a list that moved since (the user may have redirected
   * the agent). Null or absent: no user turn recorded, no such gate.
   */
  userTurnFingerprint?: string | null;
  /**
   * Set by a provider error continuation must not retry (a non-retryable
   * error, or a transient one that repeated after its retries); cleared only
   * by a real user turn. Absent or null: not parked.
   */
  parked?: ParkReason | null;
  /**
   * The stored state could not be trusted (unreadable, out of range, tampered
   * with): no nudge until the user's next real turn, which clears it.
   */
  untrusted: boolean;
  /**
   * What the project's own check (`verify`) last found, and which failure the
   * latest verification nudge answered. Absent or null: never verified.
   */
  verify?: VerifyMemory | null;
  /**
   * Which notification events were already handed out for the current
   * episode (or user turn, before an episode opens): written before any is
   * delivered, so none goes out twice. Absent or null: none sent.
   */
  notified?: NotifiedMemory | null;
  /** The project folder the scope's sessions work in, as its host last said. Absent: unknown. */
  projectDir?: string;
  /**
   * The preset its host was told to use (a hook command's `--preset`), as it last said: it wins
   * over the project file's preset there, so readers judge the scope by it too. Absent: none given.
   */
  presetOption?: PresetName;
  /**
   * The last nudge's text as a digest (`nudgeDigest`), for a host that hands a block's reason back
   * as the next user prompt (Copilot CLI): that prompt is then known as ours, not the user's.
   * Written with the decision that sent the nudge, so it lands with it or not at all; a real user
   * turn clears it. Absent or null: none.
   */
  nudgeDigest?: string | null;
}

/** Notification events recorded as sent, per episode (see `core/notify`). */
export interface NotifiedMemory {
  /** The episode id, or `turn:<lastUserTurnAt>` before an episode opens. */
  key: string;
  events: string[];
  /**
   * The finished work last announced as `done` (the whole list's fingerprint,
   * with the check's tree for a verified one), across keys: the same finished
   * work is not announced again at the user's next turn. Dropped once the list
   * has open items again. Absent: none.
   */
  doneList?: string;
}

// ---------------------------------------------------------------------------
// Verification (a project's own check decides when the work is finished)
// ---------------------------------------------------------------------------

/** When the check runs: once the list has nothing actionable left, or at every clean stop. */
export type VerifyWhen = "finished" | "every-stop";

export interface VerifySettings {
  /** A shell command run in the session's project folder; exit 0 means verified. */
  command: string;
  /** The process group is killed after this long, and the stop is not nudged. */
  timeoutMs: number;
  when: VerifyWhen;
}

/** `error`: the command could not be started at all (not the same as failing). */
export type CheckStatus = "passed" | "failed" | "timed-out" | "error";

/** One run of the check (or the cached run for an unchanged working tree). */
export interface CheckResult {
  command: string;
  status: CheckStatus;
  /** Null when the process was killed by a signal, timed out or never started. */
  exitCode: number | null;
  signal: string | null;
  startedAt: number;
  durationMs: number;
  /** The last lines of stdout and stderr together, bounded. */
  outputTail: string;
  /** Fingerprint of the working tree the check ran on. */
  tree: string;
  /** True when this result was reused from an earlier run on the same tree. */
  cached?: boolean;
}

export interface VerifyMemory {
  /** The latest check result this scope saw. */
  last: CheckResult | null;
  /** The failure the latest verification nudge answered: tree, list and failure keys. */
  nudged: { tree: string; list: string; failure: string } | null;
  /**
   * The same failure came back with nothing changed: no more verification
   * nudges until the next real user turn.
   */
  halted: boolean;
}

/** Why a scope is parked until the user speaks. */
export type ParkReason = "provider-error" | "retries-exhausted";

// ---------------------------------------------------------------------------
// Decision
// ---------------------------------------------------------------------------

export type SkipReason =
  | "state-unreadable"
  | "no-incomplete-todos"
  | "only-blocked-todos"
  | "restart-kick-suppressed"
  | "user-abort-blocked"
  | "continuation-stopped"
  | "agent-excluded"
  | "recovering"
  | "background-work"
  | "awaiting-user"
  | "turn-not-safe"
  | "provider-error"
  | "retries-exhausted"
  | "list-unchanged-since-user"
  | "max-auto-turns"
  | "max-tokens"
  | "max-wall-clock"
  /** The episode's cost reached `maxCostUsd`, or some of it is unknown while a cost limit is set. */
  | "max-cost"
  | "too-many-incomplete"
  | "stagnation"
  | "cooldown"
  /** Never returned by `decide`: the wake loop's own budget for one activation ran out. */
  | "wake-budget"
  /** The host's own goal loop (Claude Code or Codex `/goal`) drives the session: a host signal to `decide`, or recorded by a hook that steps aside before deciding. */
  | "host-goal-active"
  /** From `decideVerification`: the project's check passed; the work is done. */
  | "verified"
  /** The check ran out of time; a check that cannot finish never nudges. */
  | "verify-timed-out"
  /** The check could not be started; an unknown result never nudges. */
  | "verify-error"
  /** The check failed as before with nothing changed since its nudge: the episode ends. */
  | "verify-unchanged-failure"
  /** Recorded by a host, never returned by `decide`: the project's config file is invalid, so the limits it sets are unknown. */
  | "config-invalid";

/** Facts only the host knows at decision time. Absent means "no". */
export interface HostSignals {
  /** The agent is on a skip list, is plan/read-only, lacks write permission, or is a subagent. */
  agentExcluded?: boolean;
  /** A session-recovery routine is restoring state. */
  recovering?: boolean;
  /** Background tasks or subagents are running or pending. */
  backgroundWork?: boolean;
  /** An explicit question to the user is pending. */
  awaitingUser?: boolean;
  /** The host's own goal loop (`/goal`) is active: it continues the session itself. */
  hostGoalActive?: boolean;
}

/** How turn spend is counted against `maxTokens`. */
export type TokenMode =
  /** output + uncached input + cache writes: a long cached context does not trip the budget. */
  | "spend"
  /** the provider's total, cached input included (seed 000's behaviour). */
  | "total";

/** How progress is judged between two decisions of one episode. */
export type StagnationMode =
  /** The canonical incomplete-set fingerprint changed (seed 000). */
  | "fingerprint"
  /** Only fewer incomplete or more completed items than ever before in the episode count. */
  | "strict";

export interface Limits {
  maxAutoTurns: number;
  maxTokens: number;
  maxWallClockMs: number;
  stagnationLimit: number;
  stagnationMode: StagnationMode;
  tokenMode: TokenMode;
  /** Skip when more incomplete items than this remain (seed 003's threshold); null = no ceiling. */
  maxIncomplete: number | null;
  /** USD per episode (priced turns); null = no cost limit. */
  maxCostUsd: number | null;
  /** First cooldown after a failed delivery; doubles per consecutive failure. */
  cooldownBaseMs: number;
  cooldownMaxMs: number;
  /** Consecutive failed deliveries after which the episode stops trying (skip `cooldown`). */
  maxDeliveryFailures: number;
  /**
   * Continuations in a row after a transient provider error (network, rate
   * limit, overloaded); one more such error parks the scope. 0 = never retry.
   */
  maxErrorRetries: number;
  /** How long a host waits before delivering a retry after a transient provider error. */
  errorBackoffMs: number;
}

/** Which nudge text a preset renders (seeds 000, 002 and 003 respectively). */
export type NudgeStyle = "system-block" | "inline-list" | "status-directive";

export type PresetName = "default" | "typeclaw" | "parley" | "omo" | "pi";

/** A named bundle of engine limits and runtime timings, one per seed system plus ours. */
export interface Preset {
  name: PresetName;
  description: string;
  limits: Limits;
  nudgeStyle: NudgeStyle;
  dialect: DialectName;
  /** Idle events within this window merge into one decision. */
  debounceMs: number;
  /** Delay before a nudge is delivered, cancellable by any user activity; 0 = none. */
  countdownMs: number;
  /** Wake-loop re-entries per activation (shared with other runtime nudges). */
  maxWakeCycles: number;
}

export interface DecisionInput {
  state: ContinuationState;
  summary: TodoSummary;
  signals: HostSignals;
  limits: Limits;
  now: number;
}

/** Every decision returns the state to persist, whether it injects or skips. */
export type Decision =
  | {
      action: "inject";
      state: ContinuationState;
      episode: Episode;
      /** The nudge retries a turn a transient provider error ended: deliver after `errorBackoffMs`. */
      retry?: boolean;
      /** The nudge reports a failing project check (`decideVerification`). */
      verification?: CheckResult;
    }
  | { action: "skip"; reason: SkipReason; state: ContinuationState };

// ---------------------------------------------------------------------------
// Decision log
// ---------------------------------------------------------------------------

export interface DecisionLogEntry {
  at: number;
  /**
   * `delivery-failed` follows an `inject` whose delivery threw; it is not a
   * second nudge. `raised` is the user's `resume --add` (the note says what was added).
   */
  action: "inject" | "skip" | "delivery-failed" | "raised";
  reason: SkipReason | null;
  episodeId: string | null;
  autoTurns: number;
  tokens: number;
  stagnation: number;
  actionable: number;
  blocked: number;
  /** Characters and estimated tokens of the nudge, when one was rendered. */
  nudgeChars: number | null;
  nudgeTokens: number | null;
  /** What triggered it: "idle", "wake", "stop-hook", ... */
  trigger: string;
  /** Only on `delivery-failed` entries (false); a successful delivery adds no entry. */
  delivered?: boolean;
  note?: string;
  /** Advise mode: this decision was recorded only; an `inject` was not delivered ("would nudge"). */
  advise?: boolean;
  /** The episode's cost in USD of priced turns at this decision, when known. */
  costUsd?: number;
}

// ---------------------------------------------------------------------------
// Storage
// ---------------------------------------------------------------------------

export interface ScopeSnapshot {
  todos: TodoList;
  todosRevision: number;
  state: ContinuationState;
  stateRevision: number;
}

/**
 * What a transaction wants written. Omitted documents are left untouched (and
 * their revision does not move).
 */
export interface TransactionResult<R> {
  todos?: TodoList;
  state?: ContinuationState;
  log?: DecisionLogEntry[];
  result: R;
}

/** A stored document of a scope that could not be read in full, or copies kept of one. */
export interface StoreProblem {
  document: "todos" | "state" | "log";
  /** Where the document is (a path, for stores on files). */
  location: string;
  /** What is wrong with it now, in a few words; null when only earlier copies remain. */
  problem: string | null;
  /** Copies kept of earlier unreadable versions, oldest first. */
  preserved: string[];
}

/**
 * A store keeps, per scope, the todo list and the continuation state, each with
 * a revision, plus a bounded decision log. `transact` is an atomic
 * read-modify-write over both documents: no lost update and no double
 * injection, within a process and across processes. The callback must be pure
 * and synchronous (it may run more than once on stores that retry).
 */
export interface Store {
  read(scope: Scope): Promise<ScopeSnapshot>;
  transact<R>(scope: Scope, fn: (snapshot: ScopeSnapshot) => TransactionResult<R>): Promise<R>;
  listScopes(): Promise<Scope[]>;
  /** Newest last; at most `limit` entries (default: all kept). */
  readLog(scope: Scope, limit?: number): Promise<DecisionLogEntry[]>;
  /** Removes both documents and the log of a scope. */
  deleteScope(scope: Scope): Promise<void>;
  close(): Promise<void>;
  /**
   * Stored documents of a scope that cannot be read in full (and kept copies
   * of earlier ones), for tools that must say so; empty when all is well.
   * Optional: stores whose documents cannot break leave it out.
   */
  problems?(scope: Scope): Promise<StoreProblem[]>;
  /**
   * Reads many scopes in one pass (see `scanScopes` in `store/scan.ts`, which
   * every caller should use: it falls back to per-scope reads for stores
   * without this method). Same answers as `read`, `readLog` and `problems`
   * scope by scope, at a cost that grows with the number of scopes, not its square.
   */
  scan?(options?: ScanOptions): AsyncIterable<ScopeScan[]>;
}

/** What `Store.scan` / `scanScopes` reads. */
export interface ScanOptions {
  /** These scopes, in this order (duplicates read once); default every scope `listScopes` gives, in key order. */
  scopes?: readonly Scope[];
  /** Newest log entries returned per scope (default 1; 0 reads no log), capped by the store's log limit. */
  logTail?: number | ((scope: Scope) => number);
  /** Scopes per yielded batch (default 256): what the caller holds at once. */
  batchSize?: number;
  /** Stops the scan between batches; the iterator then throws the signal's reason. */
  signal?: AbortSignal;
}

/** One scope as a scan found it: what `read`, `readLog` and `problems` would answer, or why it could not be read. */
export type ScopeScan =
  | {
      scope: Scope;
      ok: true;
      snapshot: ScopeSnapshot;
      /** Newest last, at most `logTail` entries. */
      log: DecisionLogEntry[];
      problems: StoreProblem[];
      /** Anything is stored for the scope (a list, state, log, stop marker or kept copy). */
      exists: boolean;
    }
  | { scope: Scope; ok: false; error: Error };

// ---------------------------------------------------------------------------
// Tools (dialects)
// ---------------------------------------------------------------------------

export type DialectName = "typeclaw" | "parley" | "pi";

export interface ToolResult {
  /** Text for the model. */
  text: string;
  isError: boolean;
  /** Structured details for hosts and UIs. */
  details: Record<string, unknown>;
}

/**
 * A model-facing tool: its handler is pure, `(list, input) -> (list', result)`.
 * A store calls it inside `transact`, so bad input never loses stored data:
 * handlers return the input list unchanged on validation errors.
 */
export interface TodoTool {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12 compatible object schema) for the tool's input. */
  inputSchema: Record<string, unknown>;
  handler(list: TodoList, input: unknown): { list: TodoList; result: ToolResult };
  /** Read-only tools never write (todo_read, todo_list). */
  readOnly: boolean;
}
