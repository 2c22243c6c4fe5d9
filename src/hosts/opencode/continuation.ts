import type { ProjectSettings } from "../../config/project.js";
import { ProjectConfigWatcher } from "../../config/watch.js";
import { resolveScope } from "../../core/scope/scope.js";
import type { DecisionLogEntry, HostSignals, Scope, Store } from "../../core/types.js";
import { createHostNotifier } from "../../notify/host-notifier.js";
import {
  classifyError,
  classifyHostError,
  classifyOpenAiFinishReason,
  usageFromOpenCode,
} from "../../runtime/classify.js";
import { CancelledDelivery, type DeliveryContext, IdleEnforcer } from "../../runtime/enforcer.js";
import { asksTheUser } from "../../runtime/questions.js";
import { ContinuationRuntime, type IdleResult, type Nudge } from "../../runtime/runtime.js";
import { AgentDirectory } from "./agents.js";
import { type OpenCodeClient, type OpenCodeModelRef, unwrap } from "./client.js";
import { readEvent, type SessionEvent } from "./events.js";
import {
  type OpenCodePluginOptions,
  type OpenCodeSettings,
  parseOpenCodeOptions,
} from "./options.js";
import { todosFromOpenCode } from "./todos.js";

/** The host name in scope keys: `session/opencode.<session id>`. */
export const HOST = "opencode";

/** Key of the metadata our injected text part carries, so we can recognize it when it comes back. */
export const NUDGE_MARKER = "todo-continuation";

/** The service name in OpenCode's log. */
const LOG_SERVICE = "todo-continuation";

/** Ids remembered per session to recognize repeated updates of one message. */
const REMEMBERED_IDS = 64;

/** User messages created this long before the plugin started are history, not a new turn. */
const HISTORY_SLACK_MS = 1_000;

type LogLevel = "debug" | "info" | "warn" | "error";

export interface OpenCodeContinuationOptions {
  client: OpenCodeClient;
  settings: OpenCodeSettings;
  store: Store;
  now?: () => number;
  /** Where log lines go. Default: OpenCode's own log through `client.app.log`. */
  log?: (level: LogLevel, message: string, extra?: Record<string, unknown>) => void;
  /**
   * The project's config file (`todo-continuation.config.json`), read for
   * OpenCode's project folder and read again when it (or the user's trust
   * record) changes: its preset and limits go under `options` (an option
   * given to the plugin wins over the file), its `verify` runs only once the
   * file is trusted. Absent: no project config is read.
   */
  project?: {
    /** The folder OpenCode serves (the plugin input's `directory`). */
    directory: string;
    /** The plugin's own options (install-time defaults and OpenCode's), before validation. */
    options: OpenCodePluginOptions;
    /** Where check results and their lock are kept (the store folder). */
    cacheDir: string;
    env?: Record<string, string | undefined>;
    home?: string;
  };
}

/**
 * The plugin's options over the project file's values: an option given to
 * the plugin wins, a limit at a time.
 */
export function mergeProjectOptions(
  options: OpenCodePluginOptions,
  file: Pick<ProjectSettings, "preset" | "limits">,
): OpenCodePluginOptions {
  const merged: OpenCodePluginOptions = { ...options };
  if (options.preset === undefined && file.preset !== undefined) merged.preset = file.preset;
  if (file.limits !== undefined) merged.limits = { ...file.limits, ...(options.limits ?? {}) };
  return merged;
}

/** What the plugin remembers about one session, beside the enforcer's own bookkeeping. */
interface SessionTrack {
  /** Known from session events or a lookup: a child (subagent) session owns no list. */
  child: boolean | undefined;
  busy: boolean;
  /** An idle was passed on since the session was last busy (OpenCode sends each idle twice or more). */
  idleForwarded: boolean;
  /** Agent of the latest message, user or assistant. */
  agent: string | undefined;
  /** User messages already seen (updates of one message repeat). */
  seenUsers: string[];
  /** User messages waiting for their first part to tell who wrote them. */
  unclassified: Set<string>;
  /** User messages that were our own nudges: replies to them are injected turns. */
  injectedUsers: string[];
  /** Assistant messages whose outcome was recorded. */
  recorded: string[];
  /** Text of the last nudge sent, a second way to recognize it. */
  lastNudge: string | undefined;
  /** The latest assistant message, and the text it ended with (a question waits for the user). */
  lastAssistantId: string | undefined;
  lastAssistantText: string | undefined;
  /** Question-tool requests still waiting for the user's answer. */
  questions: Set<string>;
  /**
   * Whether the session has a todo list (in OpenCode or in the store);
   * undefined until known. Until it has one nothing of it is stored: a chat
   * that never uses todos leaves no scope and no files behind.
   */
  listed: boolean | undefined;
  /** The latest user turn and assistant outcome seen before the list existed, replayed once it does. */
  before: { userTurn: boolean; assistant: AssistantInfo | undefined; error?: unknown };
  /** Events of one session are handled in order. */
  queue: Promise<void>;
}

type AssistantInfo = Parameters<IdleEnforcer["assistantMessage"]>[1];

function remember(list: string[], id: string): void {
  list.push(id);
  if (list.length > REMEMBERED_IDS) list.splice(0, list.length - REMEMBERED_IDS);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isModelRef(value: unknown): value is OpenCodeModelRef {
  if (typeof value !== "object" || value === null) return false;
  const { providerID, modelID } = value as Record<string, unknown>;
  return (
    typeof providerID === "string" &&
    providerID !== "" &&
    typeof modelID === "string" &&
    modelID !== ""
  );
}

function describeResult(result: IdleResult): string {
  if (result.action === "skip") return `skip: ${result.reason}`;
  return result.delivered
    ? `nudge ${result.nudge.autoTurn} delivered (episode ${result.nudge.episodeId})`
    : `nudge ${result.nudge.autoTurn} not delivered: ${message(result.error)}`;
}

/**
 * The OpenCode integration for one OpenCode instance (one project folder):
 * it turns OpenCode's session events into the host-neutral IdleEnforcer's
 * calls, fetches todos from OpenCode, judges agents, and delivers nudges as
 * synthetic prompts under the session's own agent and model.
 */
export class OpenCodeContinuation {
  readonly runtime: ContinuationRuntime;
  readonly enforcer: IdleEnforcer;
  readonly #client: OpenCodeClient;
  #settings: OpenCodeSettings;
  readonly #project:
    | (NonNullable<OpenCodeContinuationOptions["project"]> & { watcher: ProjectConfigWatcher })
    | null;
  /** Why the project config cannot be used; no nudges while set. */
  #configProblem: string | null = null;
  /** Problems and notices already shown: once each. */
  readonly #told = new Set<string>();
  readonly #agents: AgentDirectory;
  readonly #tracks = new Map<string, SessionTrack>();
  /** Recently deleted sessions: late events for them are ignored, so nothing is written again. */
  readonly #deleted: string[] = [];
  readonly #now: () => number;
  readonly #startedAt: number;
  readonly #log: NonNullable<OpenCodeContinuationOptions["log"]>;
  #disposed = false;

  constructor(options: OpenCodeContinuationOptions) {
    const { client, settings, store } = options;
    this.#client = client;
    this.#settings = settings;
    this.#now = options.now ?? Date.now;
    this.#startedAt = this.#now();
    this.#log = options.log ?? ((level, text, extra) => this.#hostLog(level, text, extra));
    const project = options.project;
    this.#project =
      project === undefined
        ? null
        : {
            ...project,
            watcher: new ProjectConfigWatcher(project.directory, {
              env: project.env ?? process.env,
              ...(project.home !== undefined ? { home: project.home } : {}),
            }),
          };
    this.runtime = new ContinuationRuntime({
      store,
      preset: settings.preset.name,
      limits: settings.limits,
      nudgeStyle: settings.nudgeStyle,
      closeInstruction: settings.closeInstruction,
      now: this.#now,
      onDecision: (scope, entry) => this.#logDecision(scope, entry),
      ...(project !== undefined ? { projectDir: project.directory } : {}),
    });
    this.#agents = new AgentDirectory({
      fetchAgents: async () => {
        // Called as methods: the SDK's classes need their `this`.
        const app = client.app;
        if (typeof app?.agents !== "function")
          throw new Error("this OpenCode client has no app.agents");
        return unwrap(await app.agents({}), "app.agents");
      },
      skipAgents: settings.skipAgents,
      now: this.#now,
    });
    this.enforcer = new IdleEnforcer({
      runtime: this.runtime,
      scopeFor: (sessionId) => this.scopeFor(sessionId),
      deliver: (sessionId, nudge, context) => this.#deliver(sessionId, nudge, context),
      fetchTodos: (sessionId) => this.#fetchTodos(sessionId),
      signals: (sessionId) => this.#signals(sessionId),
      debounceMs: settings.debounceMs,
      countdownMs: settings.countdownMs,
      onCountdown: (sessionId, ms) => this.#showCountdown(sessionId, ms),
      onResult: (sessionId, result) => this.#log("info", describeResult(result), { sessionId }),
      onError: (sessionId, error) =>
        this.#log("error", `idle check failed, nothing was sent: ${message(error)}`, { sessionId }),
      forgetDeletedSessions: true,
    });
  }

  /** The durable scope of a session; null for child (subagent) sessions, which own no list. */
  scopeFor(sessionId: string): Scope | null {
    if (this.#tracks.get(sessionId)?.child === true) return null;
    return resolveScope({ kind: "session", host: HOST, sessionId });
  }

  /** Sessions the plugin holds state for (for tests and memory checks). */
  get trackedSessions(): number {
    return this.#tracks.size;
  }

  /** Handles one bus event. Never throws: a failure is logged and nothing is sent. */
  handle(event: { type: string; properties?: unknown } | undefined): Promise<void> {
    if (this.#disposed) return Promise.resolve();
    let parsed: SessionEvent | null;
    try {
      parsed = readEvent(event);
    } catch (error) {
      this.#log("error", `unreadable event: ${message(error)}`);
      return Promise.resolve();
    }
    if (parsed === null) return Promise.resolve();
    const ev = parsed;
    if (this.#deleted.includes(ev.sessionId)) return Promise.resolve();
    if (ev.kind === "deleted") {
      // At once, not queued: nothing already waiting for this session may act any more.
      remember(this.#deleted, ev.sessionId);
      this.enforcer.deleted(ev.sessionId);
      this.#tracks.delete(ev.sessionId);
      return Promise.resolve();
    }
    const track = this.#track(ev.sessionId);
    const run = track.queue.then(() => this.#apply(ev, track));
    track.queue = run.catch((error) =>
      this.#log("error", `handling ${ev.kind} failed: ${message(error)}`, {
        sessionId: ev.sessionId,
      }),
    );
    return track.queue;
  }

  /** Resolves when every queued event and every pending idle check has finished (tests, shutdown). */
  async settle(): Promise<void> {
    for (;;) {
      const queues = [...this.#tracks.values()].map((t) => t.queue);
      await Promise.all(queues);
      await this.enforcer.settle();
      await Promise.all(this.#reports);
      const after = [...this.#tracks.values()].map((t) => t.queue);
      if (
        this.#reports.size === 0 &&
        after.length === queues.length &&
        after.every((q, i) => q === queues[i])
      )
        return;
    }
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    this.enforcer.dispose();
    this.#tracks.clear();
    await this.runtime.store.close();
  }

  #track(sessionId: string): SessionTrack {
    let track = this.#tracks.get(sessionId);
    if (!track) {
      track = {
        child: undefined,
        busy: false,
        idleForwarded: false,
        agent: undefined,
        seenUsers: [],
        unclassified: new Set(),
        injectedUsers: [],
        recorded: [],
        lastNudge: undefined,
        lastAssistantId: undefined,
        lastAssistantText: undefined,
        questions: new Set(),
        listed: undefined,
        before: { userTurn: false, assistant: undefined },
        queue: Promise.resolve(),
      };
      this.#tracks.set(sessionId, track);
    }
    return track;
  }

  async #apply(ev: Exclude<SessionEvent, { kind: "deleted" }>, track: SessionTrack): Promise<void> {
    if (this.#disposed || this.#tracks.get(ev.sessionId) !== track) return;
    // Learn first whether this is a subagent's session, so nothing of it is ever stored.
    if (ev.kind !== "session-info" && track.child === undefined) {
      await this.#isChild(ev.sessionId, track);
      if (this.#tracks.get(ev.sessionId) !== track) return;
    }
    switch (ev.kind) {
      case "session-info":
        track.child = ev.parentId !== null;
        return;
      case "busy":
        track.busy = true;
        track.idleForwarded = false;
        return;
      case "idle":
        return this.#onIdle(ev.sessionId, track);
      case "error": {
        track.busy = false;
        const verdict = classifyError(ev.error);
        this.#log("info", `provider error read as ${verdict.kind}: ${verdict.why}`, {
          sessionId: ev.sessionId,
        });
        if (!(await this.#hasList(ev.sessionId, track, false))) {
          track.before.error = ev.error;
          return;
        }
        return this.enforcer.error(ev.sessionId, ev.error);
      }
      case "compacted":
        this.enforcer.compacted(ev.sessionId);
        return;
      case "todos":
        return this.#onTodos(ev.sessionId, ev.todos, track);
      case "question":
        if (ev.pending) track.questions.add(ev.requestId);
        else track.questions.delete(ev.requestId);
        return;
      case "user-message":
        return this.#onUserMessage(ev, track);
      case "part":
        return this.#onPart(ev, track);
      case "assistant-message":
        return this.#onAssistantMessage(ev, track);
    }
  }

  async #onIdle(sessionId: string, track: SessionTrack): Promise<void> {
    track.busy = false;
    if (track.idleForwarded) return;
    track.idleForwarded = true;
    if (!this.#settings.enabled) return;
    if (await this.#isChild(sessionId, track)) return;
    if (!(await this.#hasList(sessionId, track, true))) return;
    await this.refreshProject();
    const problem = this.#configProblem;
    if (problem !== null) {
      // The limits the user wrote are unknown: no nudge, and the log says why.
      const scope = this.scopeFor(sessionId);
      if (scope) await this.runtime.recordSkip(scope, "config-invalid", "idle", problem);
      return;
    }
    this.enforcer.idle(sessionId);
  }

  /**
   * Reads the project config again if a file it comes from changed (a few
   * stats otherwise), and applies it: the merged options, the check when
   * trusted. A problem or an untrusted check is told to the user once, as a
   * toast and in OpenCode's log. Never throws.
   */
  async refreshProject(): Promise<void> {
    const project = this.#project;
    if (project === null || this.#disposed) return;
    let file: ProjectSettings;
    try {
      const read = await project.watcher.read();
      if (!read.changed) return;
      file = read.settings;
    } catch (error) {
      file = {
        file: null,
        verify: null,
        trust: null,
        problem: `the project config could not be read: ${message(error)}`,
        notice: null,
      };
    }
    let problem = file.problem;
    if (problem === null) {
      try {
        const settings = parseOpenCodeOptions(mergeProjectOptions(project.options, file));
        this.runtime.reconfigure({
          preset: settings.preset.name,
          limits: settings.limits,
          nudgeStyle: settings.nudgeStyle,
          verify:
            file.verify === null
              ? null
              : { settings: file.verify, cwd: project.directory, cacheDir: project.cacheDir },
          // Advise mode and prices come from the project file only.
          ...(file.mode !== undefined ? { mode: file.mode } : {}),
          ...(file.prices !== undefined ? { prices: file.prices } : {}),
          notify: createHostNotifier({
            settings: file.notify,
            host: HOST,
            projectDir: project.directory,
            storeRoot: project.cacheDir,
            env: project.env ?? process.env,
          }),
        });
        this.enforcer.configure({
          countdownMs: settings.countdownMs,
          debounceMs: settings.debounceMs,
        });
        this.#settings = settings;
      } catch (error) {
        problem = `${file.file ?? "the project config"} with the plugin's options: ${message(error)}`;
      }
    }
    this.#configProblem = problem;
    if (problem !== null) {
      this.#tell("error", `project config not used, no nudges until it is fixed: ${problem}`);
    } else if (file.notice !== null || file.notifyNotice != null) {
      for (const notice of [file.notice, file.notifyNotice])
        if (notice != null) this.#tell("warning", notice);
    } else if (file.verify !== null) {
      this.#log("info", `verify: \`${file.verify.command}\` runs when the list is done`);
    }
  }

  /** Shows a problem or notice once: a toast in the TUI and a line in OpenCode's log. */
  #tell(variant: "warning" | "error", text: string): void {
    if (this.#told.has(text)) return;
    this.#told.add(text);
    this.#log(variant === "error" ? "error" : "warn", text);
    const tui = this.#client.tui;
    if (!this.#settings.toast || typeof tui?.showToast !== "function") return;
    try {
      tui
        .showToast({
          body: { title: "Todo continuation", message: text, variant, duration: 10_000 },
        })
        .catch(() => {});
    } catch {
      // A toast must never break the session.
    }
  }

  async #onTodos(sessionId: string, raw: unknown, track: SessionTrack): Promise<void> {
    const scope = this.scopeFor(sessionId);
    if (!scope) return;
    const todos = todosFromOpenCode(raw);
    if (todos.length === 0 && !(await this.#hasList(sessionId, track, false))) return;
    await this.#becomeListed(sessionId, track);
    await this.runtime.setTodos(scope, todos);
  }

  /**
   * Whether the session has a list: known already, or data in the store (a
   * restart mid-session), or (when `ask`) a non-empty list in OpenCode.
   */
  async #hasList(sessionId: string, track: SessionTrack, ask: boolean): Promise<boolean> {
    if (track.listed) return true;
    const scope = this.scopeFor(sessionId);
    if (!scope) return false;
    if (track.listed === undefined) {
      const stored = await this.runtime.store.read(scope);
      const known =
        stored.todos.todos.length > 0 || (await this.runtime.store.readLog(scope, 1)).length > 0;
      track.listed = known;
      if (known) return true;
    }
    if (!ask || (await this.#fetchTodos(sessionId)).length === 0) return false;
    await this.#becomeListed(sessionId, track);
    return true;
  }

  /** From now on the session is stored: first what happened before its list existed. */
  async #becomeListed(sessionId: string, track: SessionTrack): Promise<void> {
    if (track.listed) return;
    track.listed = true;
    const { userTurn, assistant, error } = track.before;
    track.before = { userTurn: false, assistant: undefined };
    if (userTurn) await this.enforcer.userMessage(sessionId);
    if (assistant) await this.enforcer.assistantMessage(sessionId, assistant);
    if (error !== undefined) await this.enforcer.error(sessionId, error);
  }

  async #onUserMessage(
    ev: Extract<SessionEvent, { kind: "user-message" }>,
    track: SessionTrack,
  ): Promise<void> {
    if (ev.agent) track.agent = ev.agent;
    if (track.seenUsers.includes(ev.messageId)) return;
    remember(track.seenUsers, ev.messageId);
    if (ev.createdAt !== undefined && ev.createdAt < this.#startedAt - HISTORY_SLACK_MS) return;
    // Who wrote it shows only in its parts, which follow at once.
    track.unclassified.add(ev.messageId);
  }

  /** Ours: the synthetic text part we sent, recognized by its marker or, failing that, its text. */
  #isOurNudge(ev: Extract<SessionEvent, { kind: "part" }>, track: SessionTrack): boolean {
    if (ev.type !== "text" || !ev.synthetic) return false;
    if (ev.metadata !== undefined && Object.hasOwn(ev.metadata, NUDGE_MARKER)) return true;
    return track.lastNudge !== undefined && ev.text === track.lastNudge;
  }

  async #onPart(ev: Extract<SessionEvent, { kind: "part" }>, track: SessionTrack): Promise<void> {
    if (ev.messageId === track.lastAssistantId && ev.type === "text" && ev.text !== undefined) {
      track.lastAssistantText = ev.text;
    }
    if (!track.unclassified.delete(ev.messageId)) return;
    if (ev.type === "compaction") {
      // OpenCode's own compaction request: budgets, an Esc block and the list gate all survive it.
      this.#log("debug", "a compaction; not a user turn", { sessionId: ev.sessionId });
      return;
    }
    if (this.#isOurNudge(ev, track)) {
      remember(track.injectedUsers, ev.messageId);
      await this.enforcer.userMessage(ev.sessionId, { injected: true });
      return;
    }
    if (ev.synthetic) {
      // Another plugin's or OpenCode's own prompt: not the user, so no budget reset.
      this.#log("debug", "a synthetic prompt from elsewhere; not a user turn", {
        sessionId: ev.sessionId,
      });
      return;
    }
    if (!(await this.#hasList(ev.sessionId, track, false))) {
      track.before = { userTurn: true, assistant: undefined };
      return;
    }
    await this.enforcer.userMessage(ev.sessionId);
  }

  async #onAssistantMessage(
    ev: Extract<SessionEvent, { kind: "assistant-message" }>,
    track: SessionTrack,
  ): Promise<void> {
    // A compaction summary is written by OpenCode's compaction agent: a nudge must not go to it.
    if (ev.agent && !ev.summary) track.agent = ev.agent;
    // A user message whose parts never came is ambiguous: it is not counted as the user's.
    track.unclassified.clear();
    if (track.lastAssistantId !== ev.messageId) {
      track.lastAssistantId = ev.messageId;
      track.lastAssistantText = undefined;
    }
    const info: AssistantInfo = {};
    if (ev.agent !== undefined && !ev.summary) info.agent = ev.agent;
    if (ev.model !== undefined && !ev.summary) info.model = ev.model;
    if (ev.completed && !track.recorded.includes(ev.messageId)) {
      remember(track.recorded, ev.messageId);
      info.stopReason =
        ev.error !== undefined && ev.error !== null
          ? classifyHostError(ev.error)
          : classifyOpenAiFinishReason(ev.finish);
      info.usage = usageFromOpenCode(ev.tokens);
      info.turnId = ev.messageId;
      info.injected = ev.parentId !== undefined && track.injectedUsers.includes(ev.parentId);
    }
    if (!(await this.#hasList(ev.sessionId, track, false))) {
      // Kept in memory only: the agent and model, and the outcome to replay once a list exists.
      if (info.stopReason) track.before = { ...track.before, assistant: info, error: undefined };
      const { stopReason: _s, usage: _u, turnId: _t, injected: _i, ...memory } = info;
      await this.enforcer.assistantMessage(ev.sessionId, memory);
      return;
    }
    await this.enforcer.assistantMessage(ev.sessionId, info);
  }

  /** Child sessions (subagents) are never nudged; unknown sessions are looked up once. */
  async #isChild(sessionId: string, track: SessionTrack): Promise<boolean> {
    if (track.child !== undefined) return track.child;
    try {
      const info = unwrap(
        await this.#client.session.get({ path: { id: sessionId } }),
        "session.get",
      );
      const parent = (info as { parentID?: unknown } | undefined)?.parentID;
      track.child = typeof parent === "string" && parent !== "";
      return track.child;
    } catch (error) {
      this.#log(
        "warn",
        `cannot tell whether the session is a subagent's; not nudging: ${message(error)}`,
        {
          sessionId,
        },
      );
      return true;
    }
  }

  async #fetchTodos(sessionId: string) {
    const data = unwrap(
      await this.#client.session.todo({ path: { id: sessionId } }),
      "session.todo",
    );
    return todosFromOpenCode(data);
  }

  async #signals(sessionId: string): Promise<HostSignals> {
    const track = this.#tracks.get(sessionId);
    const verdict = await this.#agents.judge(track?.agent);
    const signals: HostSignals = {};
    if (verdict.excluded) signals.agentExcluded = true;
    // Something else started a turn meanwhile: a nudge now would only queue behind it.
    if (track?.busy) signals.backgroundWork = true;
    // The question tool is waiting, or the agent's last words asked the user something.
    if (track && (track.questions.size > 0 || asksTheUser(track.lastAssistantText))) {
      signals.awaitingUser = true;
    }
    if (verdict.excluded) this.#log("debug", verdict.why, { sessionId });
    return signals;
  }

  async #deliver(sessionId: string, nudge: Nudge, context: DeliveryContext): Promise<void> {
    const track = this.#tracks.get(sessionId);
    if (!track) throw new Error("the session is gone");
    // The decision was recorded first (persist before deliver); a turn that started meanwhile --
    // the user's prompt, seen as busy before its text arrives -- would find the nudge queued
    // behind it. Its message, still unclassified, is reason enough: an ambiguity sends nothing.
    if (track.busy || track.unclassified.size > 0) {
      throw new CancelledDelivery("a turn started in the session before the nudge was sent");
    }
    track.lastNudge = nudge.text;
    const body: {
      agent?: string;
      model?: OpenCodeModelRef;
      parts: {
        type: "text";
        text: string;
        synthetic: boolean;
        metadata: Record<string, unknown>;
      }[];
    } = {
      parts: [
        {
          type: "text",
          text: nudge.text,
          synthetic: true,
          metadata: { [NUDGE_MARKER]: { episodeId: nudge.episodeId, autoTurn: nudge.autoTurn } },
        },
      ],
    };
    const agent = context.agent ?? track.agent;
    if (agent) body.agent = agent;
    if (isModelRef(context.model)) {
      body.model = { providerID: context.model.providerID, modelID: context.model.modelID };
    }
    unwrap(
      await this.#client.session.promptAsync({ path: { id: sessionId }, body }),
      "session.promptAsync",
    );
  }

  async #showCountdown(sessionId: string, ms: number): Promise<void> {
    if (!this.#settings.toast) return;
    const tui = this.#client.tui;
    if (typeof tui?.showToast !== "function") return;
    const seconds = Math.max(1, Math.round(ms / 1000));
    try {
      await tui.showToast({
        body: {
          title: "Todo continuation",
          message: `Open todos remain: continuing in ${seconds}s. Send a message to cancel.`,
          variant: "info",
          duration: ms,
        },
      });
    } catch (error) {
      this.#log("debug", `toast not shown: ${message(error)}`, { sessionId });
    }
  }

  /** Scopes whose unreadable files were already reported: once each, not on every idle. */
  readonly #reportedProblems = new Set<string>();

  /** Reports files of the scope the store cannot read, once per scope (and once more on state-unreadable). */
  async #reportProblems(scope: Scope, entry: DecisionLogEntry): Promise<void> {
    const unreadableState = entry.reason === "state-unreadable";
    const key = unreadableState ? `state:${scope.key}` : scope.key;
    if (this.#reportedProblems.has(key)) return;
    this.#reportedProblems.add(key);
    const problems = ((await this.runtime.store.problems?.(scope)) ?? []).filter(
      (p) => p.problem !== null,
    );
    if (problems.length === 0 && !unreadableState) return;
    const files = problems.map((p) => `${p.location} (${p.problem})`).join("; ");
    this.#log(
      "warn",
      unreadableState
        ? `stored state cannot be trusted${files ? `: ${files}` : ""}; no nudges until the user's next message`
        : `stored files cannot be read: ${files}; a copy is kept before they are replaced`,
      { scope: scope.key },
    );
  }

  /** Problem reports still reading the store: never awaited by a decision, but by `settle`. */
  readonly #reports = new Set<Promise<void>>();

  #logDecision(scope: Scope, entry: DecisionLogEntry): void {
    const report = this.#reportProblems(scope, entry)
      .catch((error) => this.#log("debug", `checking stored files failed: ${message(error)}`))
      .finally(() => this.#reports.delete(report));
    this.#reports.add(report);
    this.#log("debug", `decision ${entry.action}${entry.reason ? ` (${entry.reason})` : ""}`, {
      scope: scope.key,
      trigger: entry.trigger,
      autoTurns: entry.autoTurns,
      actionable: entry.actionable,
    });
  }

  #hostLog(level: LogLevel, text: string, extra?: Record<string, unknown>): void {
    const app = this.#client.app;
    if (typeof app?.log !== "function") return;
    const body: {
      service: string;
      level: LogLevel;
      message: string;
      extra?: Record<string, unknown>;
    } = {
      service: LOG_SERVICE,
      level,
      message: `todo-continuation: ${text}`,
    };
    if (extra) body.extra = extra;
    try {
      app.log({ body }).catch(() => {});
    } catch {
      // Logging must never break the session.
    }
  }
}
