import type {
  ContinuationState,
  Limits,
  PresetName,
  Scope,
  StopReason,
  Store,
} from "../../core/types.js";
import type { ContinuationRuntime, TurnEnd } from "../../runtime/runtime.js";
import type { HookProject } from "../hook-kit/project.js";
import { blockDecision, sessionScopeOf } from "../hook-kit/reply.js";
import { endStop, hookRuntime } from "../hook-kit/stop.js";
import { stopReasonOfFailure, stopReasonOfStop, stopSignals } from "./outcome.js";
import { type HookEvent, HookInputError, type KnownHookEvent, parseHookInput } from "./payload.js";
import { isRealUserPrompt } from "./prompt-source.js";
import { decodeTurnTotals, encodeTurnId, spendSince } from "./spend.js";
import { readTaskFolder, taskFolder } from "./task-files.js";
import {
  applyTaskChange,
  closeInstructionFor,
  parseTaskChange,
  reconcileWithTaskFiles,
  TASK_CREATE,
  TASK_UPDATE,
  TODO_WRITE,
  todosFromTodoWrite,
  toolFamilyOf,
} from "./todos.js";
import { analyzeTranscript, readTranscriptTail, type TranscriptFacts } from "./transcript.js";

/** The host name in scope keys: `session/claude-code.<session id>`. */
export const HOST = "claude-code";

/**
 * What differs for a host that speaks Claude Code's hook protocol under its
 * own names (Qwen Code): the scope's host name, its whole-list todo tool,
 * the nudge's closing line, how its transcript reads, and a ceiling on
 * nudges per episode below the host's own cap on Stop blocks in a row.
 */
export interface HookProtocol {
  host: string;
  todoWrite: string;
  closeInstruction: string;
  analyzeTranscript: (lines: readonly string[], since: number) => TranscriptFacts;
  maxNudges: number | null;
}

export interface HookOptions {
  store: Store;
  preset?: PresetName;
  limits?: Partial<Limits>;
  /** The hook's environment (task folder location). Default: process.env. */
  env?: Record<string, string | undefined>;
  now?: () => number;
  /**
   * A closing question in the final message counts as waiting for the user
   * (skip `awaiting-user`). Default true: when the agent asked, it is not our
   * place to answer "keep going".
   */
  waitOnQuestions?: boolean;
  /** Reads transcript lines; injectable for tests. */
  readTranscript?: (path: string) => Promise<string[]>;
  /** Reads a task folder; injectable for tests. */
  readTasks?: typeof readTaskFolder;
  /** Waits out a retry's backoff; injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * The project's config (see `loadHookProject`), asked for only by the
   * events that decide or count tokens. Its preset and limits apply below
   * `preset`/`limits` (a hook flag wins); its `verify` runs at a finished stop.
   */
  project?: () => HookProject;
  /** Another host's names for the same protocol. Default: Claude Code's. */
  protocol?: HookProtocol;
  /** The session's project folder, recorded in the scope's state. */
  projectDir?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What the hook process prints and exits with. */
export interface HookResponse {
  /** Written to stdout as is: empty (allow) or the block decision as JSON. */
  stdout: string;
  /** Lines for stderr: what was decided, or why nothing was. */
  stderr: string[];
  /** Always 0: a failing hook must never hold a session hostage. */
  exitCode: 0;
}

/** The JSON Claude Code reads from a Stop hook to keep the agent going. */
export { blockDecision };

const sessionScope = (sessionId: string, host: string): Scope =>
  sessionScopeOf(host, sessionId, HookInputError);

/**
 * Whether the turn that just ended was started by our own block: the previous
 * turn's outcome is the one our last nudge answered, and no prompt of the
 * user's came since (a real user turn forgets the outcome). Not
 * `stop_hook_active`: that is also true after a block of another Stop hook,
 * such as a `/goal`'s, when ours allowed the stop.
 */
export function startedByOurNudge(state: ContinuationState): boolean {
  const previous = state.lastOutcome;
  return previous != null && previous.turnId === state.episode?.answeredTurnId;
}

/** What a resumed session with `open` open items can expect from the hook, true in every case. */
export function resumeNotice(open: number, stopped: boolean, hostGoalActive: boolean): string {
  const items = `${open} open todo ${open === 1 ? "item" : "items"}`;
  if (stopped) {
    return `session resumed with ${items}; continuation is stopped for it, so no stop is nudged until \`todo-continuation resume\``;
  }
  const goal = hostGoalActive
    ? "; its /goal is active again, and while it is, stops are left to the goal loop"
    : "";
  return `session resumed with ${items}${goal}; a stop before your next prompt is not nudged, and after a prompt the agent is nudged once it works its list again`;
}

/**
 * Handles one parsed hook event. Errors propagate; `runHook` turns them into
 * an allowed stop.
 */
export async function handleHookEvent(
  event: HookEvent,
  options: HookOptions,
): Promise<HookResponse> {
  const response: HookResponse = { stdout: "", stderr: [], exitCode: 0 };
  if (event.kind === "other" || event.kind === "SubagentStop") return response;
  // Subagents keep their own lists and never own continuation: their parent does.
  if (event.agentId !== null) return response;
  const scope = sessionScope(event.sessionId, options.protocol?.host ?? HOST);
  const hook = new HookContext(event, scope, options);
  switch (event.kind) {
    case "SessionStart":
      if (event.source === "resume") await hook.armOnResume(response);
      return response;
    case "UserPromptSubmit":
      await hook.runtime().turnStarted(scope, {
        real: isRealUserPrompt(event.prompt, event.source),
      });
      return response;
    case "PostToolUse":
      await hook.recordTool(event.toolName, event.toolInput, event.toolResponse, response);
      return response;
    case "StopFailure":
      await hook.recordOutcome(
        stopReasonOfFailure(event.error, event.errorDetails, event.lastAssistantMessage),
      );
      response.stderr.push(
        `todo-continuation: turn failed (${event.error ?? "unknown error"}); no nudge`,
      );
      return response;
    case "Stop":
      return hook.stop(event, response);
  }
}

type StopEvent = Extract<KnownHookEvent, { kind: "Stop" }>;

/** One hook invocation's view of its session. */
class HookContext {
  readonly #event: KnownHookEvent;
  readonly #scope: Scope;
  readonly #options: HookOptions;
  #transcript: string[] | null = null;

  constructor(event: KnownHookEvent, scope: Scope, options: HookOptions) {
    this.#event = event;
    this.#scope = scope;
    this.#options = options;
  }

  runtime(closeInstruction?: string, project: HookProject | null = null): ContinuationRuntime {
    const maxNudges = this.#options.protocol?.maxNudges;
    return hookRuntime(this.#options, project, { closeInstruction, maxNudges });
  }

  /** The project's config, or null when the caller gave none (read once per process). */
  #project(): HookProject | null {
    return this.#options.project?.() ?? null;
  }

  get #env(): Record<string, string | undefined> {
    return this.#options.env ?? process.env;
  }

  /**
   * A resumed session: the process that ran the episode is gone, and whoever
   * resumed it gets its first answer back before any nudge. Armed only when
   * the list still has work, since only then could that Stop nudge. The line
   * printed says what holds: a prompt of the user's disarms the kick.
   */
  async armOnResume(response: HookResponse): Promise<void> {
    const snap = await this.#options.store.read(this.#scope);
    const open = snap.todos.todos.filter(
      (t) => t.status === "pending" || t.status === "in_progress",
    ).length;
    if (open === 0) return;
    await this.runtime().armRestartKick(this.#scope);
    // A resumed session restores its goal from the newest goal entry; a pause is not restored.
    await this.#transcriptLines();
    const facts = this.#analyze(0);
    const goal = facts.hostGoalActive || facts.hostGoalPaused;
    response.stderr.push(`todo-continuation: ${resumeNotice(open, snap.state.stopped, goal)}`);
  }

  async recordTool(
    toolName: string,
    toolInput: unknown,
    toolResponse: unknown,
    response: HookResponse,
  ): Promise<void> {
    if (toolName === (this.#options.protocol?.todoWrite ?? TODO_WRITE)) {
      await this.runtime().setTodos(this.#scope, todosFromTodoWrite(toolInput, toolResponse));
      return;
    }
    if (toolName !== TASK_CREATE && toolName !== TASK_UPDATE) return;
    // Validated before the transaction: bad input never reaches the stored list.
    const change = parseTaskChange(toolName, toolInput, toolResponse);
    const known = await this.#options.store.transact(this.#scope, (snap) => {
      const next = applyTaskChange(snap.todos, change);
      const seen = change.kind !== "update" || snap.todos.todos.some((t) => t.id === change.id);
      return next === snap.todos ? { result: seen } : { todos: next, result: seen };
    });
    if (!known) {
      response.stderr.push(
        `todo-continuation: ${toolName} for a task this session never created; ignored`,
      );
    }
  }

  async #transcriptLines(): Promise<string[]> {
    if (this.#transcript !== null) return this.#transcript;
    const path = this.#event.transcriptPath;
    const read = this.#options.readTranscript ?? readTranscriptTail;
    this.#transcript = path === null ? [] : await read(path);
    return this.#transcript;
  }

  #analyze(since: number): TranscriptFacts {
    const analyze = this.#options.protocol?.analyzeTranscript ?? analyzeTranscript;
    return analyze(this.#transcript ?? [], since);
  }

  #closeInstruction(family: ReturnType<typeof toolFamilyOf>): string {
    return this.#options.protocol?.closeInstruction ?? closeInstructionFor(family);
  }

  /**
   * Records how the turn ended, charging the spend the transcript shows since
   * the previous outcome (see spend.ts). Returns whether the transcript shows
   * a user interrupt since the last real user turn.
   */
  async recordOutcome(reason: StopReason): Promise<void> {
    const snap = await this.#options.store.read(this.#scope);
    const { end } = await this.#outcome(snap.state, () => reason);
    // The limits decide how the turn's tokens count; a config that does not validate counts none of its own.
    const project = this.#project();
    await this.runtime(undefined, project?.problem == null ? project : null).turnEnded(
      this.#scope,
      end,
    );
  }

  /** How the turn ended, from the transcript, with the spend since `state`'s last outcome. */
  async #outcome(
    state: ContinuationState,
    reason: (interrupted: boolean, transcriptStop: string | null) => StopReason,
  ): Promise<{ end: TurnEnd; facts: TranscriptFacts }> {
    await this.#transcriptLines();
    const facts = this.#analyze(state.lastUserTurnAt ?? 0);
    const previous = decodeTurnTotals(state.lastOutcome?.turnId);
    const end: TurnEnd = {
      turnId: encodeTurnId(facts.usage),
      stopReason: reason(facts.interrupted, facts.lastStopReason),
      usage: spendSince(facts.usage, previous),
      injected: startedByOurNudge(state),
      ...(facts.model !== undefined ? { model: facts.model } : {}),
    };
    return { end, facts };
  }

  /** Folds the tasks folder into a Task-tool list: Claude Code has written it by now. */
  async #refreshTasks(): Promise<void> {
    const dir = taskFolder(this.#event.sessionId, this.#env);
    if (dir === null) return;
    const files = await (this.#options.readTasks ?? readTaskFolder)(dir);
    if (files === null) return;
    await this.#options.store.transact(this.#scope, (s) => {
      const next = reconcileWithTaskFiles(s.todos, files);
      return next === s.todos ? { result: undefined } : { todos: next, result: undefined };
    });
  }

  /**
   * One read and one write: the turn's outcome is recorded in the decision's
   * own transaction (plus one more write when a Task list is refreshed from
   * its folder). A hook process starts for every Stop, so each write counts.
   */
  async stop(event: StopEvent, response: HookResponse): Promise<HookResponse> {
    const before = await this.#options.store.read(this.#scope);
    // A session that never wrote a todo has nothing to decide: write nothing.
    if (before.todosRevision === 0 && before.todos.todos.length === 0) return response;
    const family = toolFamilyOf(before.todos);
    if (family === "tasks") await this.#refreshTasks();
    const message = event.lastAssistantMessage;
    const { end, facts } = await this.#outcome(before.state, (interrupted, transcriptStopReason) =>
      stopReasonOfStop({ lastAssistantMessage: message, interrupted, transcriptStopReason }),
    );
    const stopReason = end.stopReason;
    const signals = stopSignals(event);
    // An AskUserQuestion that got no answer waits for the user like a closing question.
    if (facts.questionPending) signals.awaitingUser = true;
    // A /goal keeps the session going by its own Stop hook: ours steps aside while it is active.
    if (facts.hostGoalActive) signals.hostGoalActive = true;
    // The model paused its goal to tell the user what it needs: that waits for the user too.
    if (facts.hostGoalPaused) signals.awaitingUser = true;
    if (this.#options.waitOnQuestions === false) signals.awaitingUser = false;
    const close = this.#closeInstruction(family);
    const turn = stopReason === "stop" ? "" : ` after a turn that ended ${stopReason}`;
    const lines = await endStop(
      (project) => this.runtime(close, project),
      this.#scope,
      this.#project(),
      {
        signals,
        outcome: end,
        deliver: async (nudge) => {
          // A retry after a transient provider error waits out its backoff first.
          if ((nudge.delayMs ?? 0) > 0) await (this.#options.sleep ?? sleep)(nudge.delayMs ?? 0);
          response.stdout = blockDecision(nudge.text);
        },
      },
      turn,
    );
    response.stderr.push(...lines);
    return response;
  }
}

/**
 * The whole hook: parses stdin's text, handles the event, and never fails
 * closed. Any error (bad input, an unreadable store) allows the stop, is
 * explained on stderr, and exits 0, so a broken integration can only cost a
 * nudge, never trap a session.
 */
export async function runHook(input: string, options: HookOptions): Promise<HookResponse> {
  try {
    return await handleHookEvent(parseHookInput(input), options);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      stdout: "",
      stderr: [`todo-continuation: hook failed, allowing the stop: ${reason}`],
      exitCode: 0,
    };
  }
}
