import type {
  OpenCodeClient,
  OpenCodeModelRef,
  OpenCodeTextPartInput,
  SdkResult,
} from "../client.js";

export interface PromptCall {
  sessionId: string;
  agent: string | undefined;
  model: OpenCodeModelRef | undefined;
  parts: OpenCodeTextPartInput[];
}

export const BUILD_AGENT = {
  name: "build",
  mode: "primary",
  permission: [{ permission: "*", pattern: "*", action: "allow" }],
};

export const PLAN_AGENT = {
  name: "plan",
  mode: "primary",
  permission: [
    { permission: "*", pattern: "*", action: "allow" },
    { permission: "edit", pattern: "*", action: "deny" },
    { permission: "edit", pattern: ".opencode/plans/*.md", action: "allow" },
  ],
};

export const REVIEW_AGENT = {
  name: "review",
  mode: "primary",
  permission: { edit: "deny" },
};

/** An in-memory stand-in for the parts of OpenCode's client the plugin calls. */
export class FakeOpenCode {
  readonly todos = new Map<string, unknown>();
  readonly parents = new Map<string, string | undefined>();
  agents: unknown[] = [BUILD_AGENT, PLAN_AGENT, REVIEW_AGENT];
  readonly prompts: PromptCall[] = [];
  readonly toasts: { message: string; duration: number | undefined }[] = [];
  readonly logs: { level: string; message: string }[] = [];
  /** Set to make the next calls fail like an HTTP error. */
  promptFailure: { status: number; error: unknown } | null = null;
  todoFailure: { status: number; error: unknown } | null = null;
  #toastWaiters: (() => void)[] = [];

  /** Resolves at the next toast (or at once if one was shown since the last call). */
  nextToast(): Promise<void> {
    return new Promise((resolve) => this.#toastWaiters.push(resolve));
  }

  /**
   * The client. Like the real SDK's, its methods need their `this` (they are
   * called on the object they belong to), so a detached call fails here too.
   */
  client(): OpenCodeClient {
    const ok = <T>(data: T, status = 200): SdkResult<T> => ({ data, response: { status } });
    const session = {
      fake: this,
      async todo(this: { fake: FakeOpenCode }, { path }: { path: { id: string } }) {
        const failure = this.fake.todoFailure;
        if (failure) return { error: failure.error, response: { status: failure.status } };
        return ok(this.fake.todos.get(path.id) ?? []);
      },
      async get(this: { fake: FakeOpenCode }, { path }: { path: { id: string } }) {
        return ok({ id: path.id, parentID: this.fake.parents.get(path.id) });
      },
      async promptAsync(
        this: { fake: FakeOpenCode },
        { path, body }: Parameters<OpenCodeClient["session"]["promptAsync"]>[0],
      ): Promise<SdkResult<unknown>> {
        const failure = this.fake.promptFailure;
        if (failure) return { error: failure.error, response: { status: failure.status } };
        this.fake.prompts.push({
          sessionId: path.id,
          agent: body.agent,
          model: body.model,
          parts: body.parts,
        });
        return { response: { status: 204 } };
      },
    };
    const app = {
      fake: this,
      async agents(this: { fake: FakeOpenCode }) {
        return ok(this.fake.agents);
      },
      async log(
        this: { fake: FakeOpenCode },
        { body }: { body: { level: string; message: string } },
      ) {
        this.fake.logs.push({ level: body.level, message: body.message });
        return ok(true);
      },
    };
    const tui = {
      fake: this,
      async showToast(
        this: { fake: FakeOpenCode },
        { body }: { body: { message: string; duration?: number } },
      ) {
        this.fake.toasts.push({ message: body.message, duration: body.duration });
        for (const wake of this.fake.#toastWaiters.splice(0)) wake();
        return ok(true);
      },
    };
    return { session, app, tui } as OpenCodeClient;
  }
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${(++counter).toString().padStart(6, "0")}`;

/** OpenCode bus events, shaped as OpenCode 1.18 sends them. */
export const events = {
  status: (sessionID: string, type: "idle" | "busy" | "retry") => ({
    type: "session.status",
    properties: { sessionID, status: { type } },
  }),
  idle: (sessionID: string) => ({ type: "session.idle", properties: { sessionID } }),
  error: (sessionID: string, error: unknown) => ({
    type: "session.error",
    properties: { sessionID, error },
  }),
  created: (sessionID: string, parentID?: string) => ({
    type: "session.created",
    properties: { sessionID, info: { id: sessionID, ...(parentID ? { parentID } : {}) } },
  }),
  deleted: (sessionID: string) => ({
    type: "session.deleted",
    properties: { sessionID, info: { id: sessionID } },
  }),
  compacted: (sessionID: string) => ({ type: "session.compacted", properties: { sessionID } }),
  question: (sessionID: string, id: string) => ({
    type: "question.asked",
    properties: { id, sessionID, questions: [{ question: "Which one?", options: [] }] },
  }),
  questionReplied: (sessionID: string, requestID: string) => ({
    type: "question.replied",
    properties: { sessionID, requestID, answers: [["A"]] },
  }),
  todos: (sessionID: string, todos: unknown) => ({
    type: "todo.updated",
    properties: { sessionID, todos },
  }),
  user: (sessionID: string, id: string, options: { agent?: string; created?: number } = {}) => ({
    type: "message.updated",
    properties: {
      sessionID,
      info: {
        id,
        sessionID,
        role: "user",
        time: { created: options.created ?? Date.now() },
        agent: options.agent ?? "build",
        model: { providerID: "scripted", modelID: "m1" },
      },
    },
  }),
  part: (
    sessionID: string,
    messageID: string,
    part: { text: string; synthetic?: boolean; metadata?: Record<string, unknown>; type?: string },
  ) => ({
    type: "message.part.updated",
    properties: {
      sessionID,
      part: { id: nextId("prt"), sessionID, messageID, type: part.type ?? "text", ...part },
    },
  }),
  assistant: (
    sessionID: string,
    id: string,
    options: {
      parentID?: string;
      agent?: string;
      completed?: boolean;
      finish?: string;
      error?: unknown;
      tokens?: unknown;
      /** A compaction summary. */
      summary?: boolean;
    } = {},
  ) => ({
    type: "message.updated",
    properties: {
      sessionID,
      info: {
        id,
        sessionID,
        role: "assistant",
        parentID: options.parentID,
        agent: options.agent ?? "build",
        mode: options.agent ?? "build",
        providerID: "scripted",
        modelID: "m1",
        tokens: options.tokens ?? {
          input: 100,
          output: 10,
          reasoning: 0,
          cache: { read: 0, write: 0 },
        },
        time: {
          created: Date.now(),
          ...(options.completed === false ? {} : { completed: Date.now() }),
        },
        ...(options.finish !== undefined ? { finish: options.finish } : {}),
        ...(options.error !== undefined ? { error: options.error } : {}),
        ...(options.summary ? { summary: true } : {}),
      },
    },
  }),
};

export type BusEvent = { type: string; properties?: unknown };

/**
 * The events of one turn as OpenCode emits them: the user message and its
 * part, busy, the assistant message (created, then completed), then both idle
 * events. `userPart` describes the prompt (default: typed by the user).
 */
export function turnEvents(
  sessionID: string,
  options: {
    userPart?: { text: string; synthetic?: boolean; metadata?: Record<string, unknown> };
    finish?: string;
    agent?: string;
    tokens?: unknown;
  } = {},
): { events: BusEvent[]; userId: string; assistantId: string } {
  const userId = nextId("msg");
  const assistantId = nextId("msg");
  const agent = options.agent ?? "build";
  return {
    userId,
    assistantId,
    events: [
      events.user(sessionID, userId, { agent }),
      events.part(sessionID, userId, options.userPart ?? { text: "do the work" }),
      events.status(sessionID, "busy"),
      events.assistant(sessionID, assistantId, { parentID: userId, agent, completed: false }),
      events.assistant(sessionID, assistantId, {
        parentID: userId,
        agent,
        finish: options.finish ?? "stop",
        ...(options.tokens !== undefined ? { tokens: options.tokens } : {}),
      }),
      events.status(sessionID, "idle"),
      events.idle(sessionID),
    ],
  };
}
