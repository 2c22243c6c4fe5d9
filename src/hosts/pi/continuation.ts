import { randomUUID } from "node:crypto";
import type { HostSignals, Scope, ScopeSnapshot, TodoTool, ToolResult } from "../../core/types.js";
import {
  type ContinuationRuntime,
  completeUsage,
  type IdleResult,
  NO_SCOPE_NOTICE,
  usageFromPi,
} from "../../runtime/index.js";
import { asksTheUser } from "../../runtime/questions.js";
import { formatReminder } from "./messages.js";
import type { PiAssistantMessage, PiCustomMessage, PiMessage } from "./pi-api.js";
import { previewIdle, withOutcome } from "./preview.js";
import { piMayRecover, piStopReason } from "./retry.js";

/** `customType` of the continuation messages this extension queues. */
export const NUDGE_MESSAGE_TYPE = "todo-continuation";
/** `customType` of reminders (failed writes, user edits) added to the model's context. */
export const REMINDER_MESSAGE_TYPE = "todo-continuation-reminder";

export interface PiContinuationOptions {
  runtime: ContinuationRuntime;
  /** Queues a message for pi; must not await (pi drains its queue within microtasks). */
  queueFollowUp: (message: {
    customType: string;
    content: string;
    display: boolean;
    details: unknown;
  }) => void;
  signals?: () => HostSignals;
  /** Internal failures; the host run always goes on, and nothing is injected. */
  onError?: (error: unknown) => void;
}

/** A nudge queued at turn_end whose persisted decision is still being made. */
interface Reservation {
  id: string;
  decided: Promise<IdleResult | undefined>;
  /** A real user turn arrived after it was queued: drop it instead of sending it. */
  superseded: boolean;
}

export interface ContextResult {
  messages?: PiMessage[];
}

function isAssistant(message: PiMessage): message is PiAssistantMessage {
  return message.role === "assistant";
}

function reservationId(message: PiMessage): string | null {
  if (message.role !== "custom") return null;
  const custom = message as PiCustomMessage;
  if (custom.customType !== NUDGE_MESSAGE_TYPE) return null;
  const id = (custom.details as { reservation?: unknown } | undefined)?.reservation;
  return typeof id === "string" ? id : null;
}

function answerText(message: PiAssistantMessage): string {
  if (!Array.isArray(message.content)) return "";
  return message.content
    .filter((part) => part?.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n");
}

function hasToolCalls(message: PiAssistantMessage): boolean {
  return (
    Array.isArray(message.content) && message.content.some((part) => part?.type === "toolCall")
  );
}

/**
 * The continuation logic of the pi extension, one instance per pi session.
 *
 * pi 0.73 does not wait for extension handlers: its loop checks the follow-up
 * queue a few microtasks after emitting `turn_end`, and a continuation sent
 * any later (from `agent_end`, or after an await) is lost in print mode. The
 * store is async, yet the runtime must persist a decision before delivering
 * it. Both hold because queuing is not delivering:
 *
 * 1. `context` (which pi awaits before every model call) settles pending
 *    writes and reads a snapshot of the scope.
 * 2. `message_end` records the assistant outcome: in the snapshot at once,
 *    in the store through a serial queue (never awaited by pi).
 * 3. `turn_end`, with no await, previews the decision on the snapshot with
 *    the pure engine. On inject it queues the nudge as a follow-up (a
 *    reservation) and queues `runIdle`, which decides and persists for real.
 * 4. pi drains the follow-up and emits `context` before the model call,
 *    awaiting us: we wait for `runIdle`. Inject: the model gets the persisted
 *    nudge. Skip (the store changed since the snapshot, e.g. a `stop` from
 *    the CLI): we abort the call before any request is sent.
 *
 * So the model never sees a nudge the store has not recorded, and the queue
 * is filled synchronously. When the preview says skip, `runIdle` still runs
 * so the skip lands in the decision log.
 */
export class PiContinuation {
  readonly #runtime: ContinuationRuntime;
  readonly #options: PiContinuationOptions;
  #scope: Scope | null = null;
  #snapshot: ScopeSnapshot | null = null;
  #chain: Promise<unknown> = Promise.resolve();
  #reservation: Reservation | null = null;
  /** The run since the last real prompt was started by a nudge we delivered. */
  #injectedTurn = false;
  /** We aborted a model call to withdraw a nudge: its aborted turn is not the user's abort. */
  #withdrawing = false;
  /** The turn that ended with our withdrawal-abort: nothing to decide for it. */
  #ignoreTurnEnd = false;
  /** The answer the pending nudge followed: it stands in for the call a withdrawal aborts. */
  #answer: PiAssistantMessage | null = null;
  /**
   * A turn that ended in a provider error pi may still retry (or recover from
   * by compacting): nothing is decided on it until pi has given up.
   */
  #pendingError: PiAssistantMessage | null = null;
  /** Tool calls our handlers ran (their failures already queued a reminder). */
  readonly #ranToolCalls = new Set<string>();
  /** Why the project config cannot be used: nothing is nudged while set. */
  #configProblem: string | null = null;
  /** A finished stop whose check runs at `agent_before_settle` (pi 1.x). */
  #settleCheck: { signals: HostSignals } | null = null;
  #settles = false;

  constructor(options: PiContinuationOptions) {
    this.#runtime = options.runtime;
    this.#options = options;
  }

  get scope(): Scope | null {
    return this.#scope;
  }

  /**
   * The project config cannot be used (the extension re-reads it): while set,
   * no stop is nudged and each is logged as `config-invalid` with `problem`.
   */
  setConfigProblem(problem: string | null): void {
    this.#configProblem = problem;
  }

  /**
   * pi emits `agent_before_settle` and waits for its handlers (pi 1.x): a
   * stop whose check must run is decided there, with the check's result,
   * instead of queuing a nudge at `turn_end` that a passing check withdraws.
   */
  setSettles(settles: boolean): void {
    this.#settles = settles;
  }

  /** Runs store work strictly in order, off pi's critical path; failures are reported, not thrown. */
  #enqueue<T>(work: (scope: Scope) => Promise<T>): Promise<T | undefined> {
    const scope = this.#scope;
    if (scope === null) return Promise.resolve(undefined);
    const run = this.#chain.then(() => work(scope));
    const settled = run.catch((error: unknown) => {
      this.#options.onError?.(error);
      return undefined;
    });
    this.#chain = settled;
    return settled;
  }

  /** Resolves when every queued store write has finished. */
  async settle(): Promise<void> {
    await this.#chain;
  }

  async #refresh(): Promise<void> {
    await this.settle();
    const scope = this.#scope;
    if (scope === null) return;
    try {
      this.#snapshot = await this.#runtime.store.read(scope);
    } catch (error) {
      // Without a snapshot nothing is previewed, so nothing is queued: fail closed.
      this.#snapshot = null;
      this.#options.onError?.(error);
    }
  }

  #signals(): HostSignals {
    return this.#options.signals?.() ?? {};
  }

  /** The session's scope (null for subagents and unknown sessions: no list, no nudges). */
  async start(scope: Scope | null): Promise<void> {
    await this.settle();
    this.#scope = scope;
    this.#snapshot = null;
    this.#reservation = null;
    this.#injectedTurn = false;
    this.#pendingError = null;
    this.#settleCheck = null;
    await this.#refresh();
  }

  /** A prompt typed by the user (or sent over RPC): resets the episode and lifts an abort block. */
  async userInput(source: string): Promise<void> {
    if (source === "extension") return;
    // The error before this prompt was final (nothing retried it): its park goes on record first.
    this.providerErrorFinal();
    if (this.#reservation) this.#reservation.superseded = true;
    this.#injectedTurn = false;
    this.#settleCheck = null;
    await this.#enqueue((scope) => this.#runtime.turnStarted(scope, { real: true }));
    await this.#refresh();
  }

  /** A dialect tool call, ordered with the other store writes. */
  async callTool(tool: TodoTool, input: unknown, toolCallId?: string): Promise<ToolResult> {
    if (toolCallId !== undefined) this.#ranToolCalls.add(toolCallId);
    if (this.#scope === null) {
      return { text: NO_SCOPE_NOTICE, isError: false, details: { noScope: true } };
    }
    const result = await this.#enqueue((scope) => this.#runtime.callTool(scope, tool, input));
    if (result === undefined) {
      return {
        text: `${tool.name} failed: the todo store could not be reached, and nothing was written.`,
        isError: true,
        details: {},
      };
    }
    return result;
  }

  /**
   * A todo tool call that failed before our handler ran (pi refused its
   * arguments against the schema): the model still learns, at its next call,
   * that its list did not change. Never awaits.
   */
  toolEnded(toolCallId: string, toolName: string, isError: boolean): void {
    const ran = this.#ranToolCalls.delete(toolCallId);
    if (ran || !isError) return;
    void this.#enqueue((scope) =>
      this.#runtime.pushReminder(scope, {
        kind: "write-failed",
        text: `Your last ${toolName} call was rejected before it ran, so the todo list did not change. Check the arguments against the tool's schema and retry.`,
      }),
    );
  }

  /**
   * Before every model call (pi awaits this): confirm or withdraw a queued
   * nudge, take a fresh snapshot, and add pending reminders for this call.
   */
  async context(messages: PiMessage[], abort: () => void): Promise<ContextResult | undefined> {
    // pi is calling the model again after an error: its retry (or a compaction) took over.
    this.#pendingError = null;
    // pi went on by itself (a queued message): the stop was not final, nothing to check.
    this.#settleCheck = null;
    let next = messages;
    const reservation = this.#reservation;
    const index = reservation ? messages.findIndex((m) => reservationId(m) === reservation.id) : -1;
    if (reservation && index >= 0) {
      this.#reservation = null;
      const result = await reservation.decided;
      next = [...messages];
      if (reservation.superseded) {
        next.splice(index, 1);
      } else if (result?.action === "inject" && result.delivered) {
        const sent = next[index] as PiCustomMessage;
        // The preview rendered the queued text; the model gets the persisted nudge.
        if (sent.content !== result.nudge.text)
          next[index] = { ...sent, content: result.nudge.text };
        this.#injectedTurn = true;
      } else {
        next.splice(index, 1);
        this.#withdrawing = true;
        abort();
      }
    }
    await this.#refresh();
    const reminders = (await this.#enqueue((scope) => this.#runtime.drainReminders(scope))) ?? [];
    if (reminders.length > 0) {
      const reminder: PiCustomMessage = {
        role: "custom",
        customType: REMINDER_MESSAGE_TYPE,
        content: reminders.map((r) => formatReminder(r.text)).join("\n"),
        display: false,
        timestamp: Date.now(),
      };
      next = [...next, reminder];
    }
    return next === messages ? undefined : { messages: next };
  }

  /**
   * Records how an assistant message ended, with its usage. Never awaits.
   * Returns a replacement for the message when it is the call we aborted to
   * withdraw a nudge: the run's answer, so the user's run ends as if no
   * nudge had been queued (`pi -p` prints it and exits 0).
   */
  messageEnd(message: PiMessage): PiAssistantMessage | undefined {
    if (!isAssistant(message)) return undefined;
    const stopReason = piStopReason(message);
    // pi owns retries of provider errors: the engine adds none after it gives up.
    const hostRetried = message.stopReason === "error";
    if (this.#withdrawing) {
      this.#withdrawing = false;
      // The call we aborted to withdraw a nudge: not a user abort, and the
      // decision that withdrew it is already persisted.
      if (stopReason === "aborted") {
        this.#ignoreTurnEnd = true;
        const answer = this.#answer;
        this.#answer = null;
        if (answer === null) return undefined;
        const { errorMessage: _, ...rest } = message as PiAssistantMessage & {
          errorMessage?: unknown;
        };
        return { ...rest, content: answer.content, stopReason: answer.stopReason };
      }
    }
    // Every assistant message between a delivered nudge and the next real
    // prompt belongs to the turn that nudge started.
    const injected = this.#injectedTurn;
    const usage = usageFromPi(message.usage);
    const turnId = `pi-${message.responseId ?? "local"}-${message.timestamp}`;
    const named = (message as { model?: unknown }).model;
    const model = typeof named === "string" && named !== "" ? named : undefined;
    if (this.#snapshot) {
      try {
        this.#snapshot = withOutcome(
          this.#snapshot,
          {
            turnId,
            stopReason,
            endedAt: this.#runtime.now(),
            usage: completeUsage(usage),
            injected,
            restartCaused: false,
            ...(hostRetried ? { hostRetried } : {}),
            // Priced as the runtime will price it, so the preview and the decision agree.
            ...(model !== undefined ? { model } : {}),
            costUsd: this.#runtime.costOf(usage, model),
          },
          this.#runtime.limits.tokenMode,
        );
      } catch (error) {
        this.#snapshot = null;
        this.#options.onError?.(error);
      }
    }
    void this.#enqueue((scope) =>
      this.#runtime.turnEnded(scope, {
        turnId,
        stopReason,
        usage,
        injected,
        hostRetried,
        ...(model !== undefined ? { model } : {}),
      }),
    );
    return undefined;
  }

  /**
   * The run ended (pi emits this before it decides on a retry). An error pi
   * cannot retry or recover from is final now; one it may retry waits for
   * `context` (pi retried), `agent_before_settle` (1.x: pi gave up), the
   * next prompt, or the end of the session.
   */
  agentEnd(): void {
    const pending = this.#pendingError;
    if (pending !== null && !piMayRecover(pending)) this.providerErrorFinal();
  }

  /**
   * pi has given up on the run's last error (or never retried it): the
   * decision is made now, on that error's outcome, and parks the session.
   * Never awaits; the decision is queued with the other store writes.
   */
  providerErrorFinal(): void {
    if (this.#pendingError === null || this.#scope === null) return;
    this.#pendingError = null;
    void this.#enqueue((scope) =>
      this.#runtime.runIdle(scope, {
        trigger: "provider_error",
        signals: this.#signals(),
        deliver: () => {
          throw new Error("the run ended in a provider error; nothing was queued");
        },
      }),
    );
  }

  /**
   * pi 1.x is about to settle the run (it awaits this): a finished stop whose
   * check is due is decided now, the check included, and a nudge for a
   * failing check is queued as a follow-up, which keeps the run going.
   * Returns whether one was queued.
   */
  async beforeSettle(): Promise<boolean> {
    const pending = this.#settleCheck;
    this.#settleCheck = null;
    if (pending === null || this.#scope === null) return false;
    const result = await this.#enqueue((scope) =>
      this.#runtime.runIdle(scope, {
        trigger: "turn_end",
        signals: pending.signals,
        // Persisted before this runs: queuing is the delivery.
        deliver: (nudge) =>
          this.#options.queueFollowUp({
            customType: NUDGE_MESSAGE_TYPE,
            content: nudge.text,
            display: true,
            details: { episodeId: nudge.episodeId, autoTurn: nudge.autoTurn },
          }),
      }),
    );
    const queued = result?.action === "inject" && result.delivered;
    if (queued) this.#injectedTurn = true;
    this.#snapshot = null;
    await this.#refresh();
    return queued;
  }

  /**
   * The end of a turn. Only a turn without tool calls can end the run; for
   * those, decide synchronously whether to queue a nudge. Never awaits.
   */
  turnEnd(message: PiMessage): void {
    if (this.#ignoreTurnEnd) {
      this.#ignoreTurnEnd = false;
      return;
    }
    if (this.#scope === null || !isAssistant(message)) return;
    if (message.stopReason === "error") {
      // pi decides whether to retry only after agent_end: deciding here would
      // park a run that pi's retry is about to recover. See `agentEnd`. (A
      // stream that broke inside a tool call ends the run the same way.)
      this.#pendingError = message;
      return;
    }
    if (hasToolCalls(message)) return;
    // One nudge in flight at a time; the pending one answers this turn too.
    if (this.#reservation) return;
    const problem = this.#configProblem;
    if (problem !== null) {
      // The limits the user wrote are unknown: no nudge, and the log says why.
      void this.#enqueue((scope) =>
        this.#runtime.recordSkip(scope, "config-invalid", "turn_end", problem),
      );
      return;
    }
    const signals = this.#signals();
    // An answer that ends by asking the user something waits for the user.
    if (asksTheUser(answerText(message))) signals.awaitingUser = true;
    let preview: ReturnType<typeof previewIdle> | null = null;
    if (this.#snapshot) {
      try {
        preview = previewIdle(this.#runtime, this.#snapshot, signals, this.#runtime.now());
      } catch (error) {
        this.#options.onError?.(error);
      }
    }
    // A finished list whose check runs now. pi 1.x waits for its
    // `agent_before_settle` handlers: decided there, with the check's result.
    if (preview?.action === "skip" && preview.check && this.#settles) {
      this.#settleCheck = { signals };
      return;
    }
    // pi 0.73 does not: a nudge for a failing check could not be queued once
    // the run has ended, so one is queued at once, and `context` withdraws it
    // if the check passes.
    // Advise mode queues nothing ahead: the decision below is recorded, never delivered.
    if (
      preview !== null &&
      this.#runtime.mode !== "advise" &&
      (preview.action === "inject" || preview.check)
    ) {
      const id = randomUUID();
      const command = this.#runtime.verify?.settings.command ?? "";
      this.#options.queueFollowUp({
        customType: NUDGE_MESSAGE_TYPE,
        content:
          preview.action === "inject"
            ? preview.text
            : `Your todo list is done; the project's check (\`${command}\`) decides whether the work is finished.`,
        display: true,
        details: { reservation: id },
      });
      // The snapshot no longer predicts the store once a nudge is pending.
      this.#snapshot = null;
      this.#answer = message;
      this.#reservation = {
        id,
        superseded: false,
        decided: this.#enqueue((scope) =>
          // Handing the nudge over is all delivery means here: the model sees
          // it only after `context` has checked this persisted decision.
          this.#runtime.runIdle(scope, { trigger: "turn_end", signals, deliver: () => {} }),
        ),
      };
      return;
    }
    void this.#enqueue((scope) =>
      this.#runtime.runIdle(scope, {
        trigger: "turn_end",
        signals,
        deliver: () => {
          throw new Error(
            "the run had already ended when the decision was made; nothing was queued",
          );
        },
      }),
    );
  }
}
