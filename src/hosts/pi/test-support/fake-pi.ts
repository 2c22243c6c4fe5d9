import type {
  PiAssistantMessage,
  PiContext,
  PiExtensionApi,
  PiMessage,
  PiSendOptions,
  PiToolDefinition,
} from "../pi-api.js";

type AnyHandler = (event: unknown, ctx: PiContext) => unknown;

/**
 * A stand-in for pi's extension API in unit tests: it records what the
 * extension registers and queues, and lets a test fire events in pi's order.
 */
export class FakePi implements PiExtensionApi {
  readonly handlers = new Map<string, AnyHandler[]>();
  readonly tools = new Map<string, PiToolDefinition>();
  readonly commands = new Map<string, unknown>();
  readonly sent: {
    message: { customType: string; content: string; display: boolean; details?: unknown };
    options?: PiSendOptions;
  }[] = [];
  aborted = 0;
  readonly notices: string[] = [];
  readonly ctx: PiContext;

  /** Acts as pi 1.x: `on` returns an unsubscribe function, and `agent_before_settle` is awaited. */
  readonly settles: boolean;

  constructor(sessionId = "session-1", options: { settles?: boolean } = {}) {
    this.settles = options.settles === true;
    this.ctx = {
      sessionManager: { getSessionId: () => sessionId },
      abort: () => {
        this.aborted++;
      },
      hasUI: false,
      ui: { notify: (message) => this.notices.push(message) },
    };
  }

  readonly on = ((event: string, handler: (event: never, ctx: PiContext) => unknown) => {
    const list = this.handlers.get(event) ?? [];
    list.push(handler as AnyHandler);
    this.handlers.set(event, list);
    return this.settles ? () => {} : undefined;
  }) as PiExtensionApi["on"];

  registerTool(tool: PiToolDefinition): void {
    this.tools.set(tool.name, tool);
  }

  registerCommand(name: string, options: unknown): void {
    this.commands.set(name, options);
  }

  sendMessage(
    message: { customType: string; content: string; display: boolean; details?: unknown },
    options?: PiSendOptions,
  ): void {
    this.sent.push({ message, ...(options ? { options } : {}) });
  }

  /** Fires an event; resolves with the last handler's result. */
  async emit(event: string, payload: unknown): Promise<unknown> {
    let result: unknown;
    for (const handler of this.handlers.get(event) ?? []) result = await handler(payload, this.ctx);
    return result;
  }

  /** Fires an event the way pi's loop sees it: without waiting for the handler. */
  emitSync(event: string, payload: unknown): void {
    for (const handler of this.handlers.get(event) ?? []) void handler(payload, this.ctx);
  }

  /**
   * A message_end as pi 0.73 runs it: handlers are called without waiting,
   * and a `{ message }` one returns replaces the message in place.
   */
  endMessage<M extends object>(message: M): M {
    for (const handler of this.handlers.get("message_end") ?? []) {
      const result = handler({ message }, this.ctx) as { message?: object } | undefined;
      if (result?.message) {
        for (const key of Object.keys(message)) delete (message as Record<string, unknown>)[key];
        Object.assign(message, result.message);
      }
    }
    return message;
  }

  /** Runs a registered tool as pi would; a throw becomes `{ isError: true }`. */
  async callTool(name: string, params: unknown, toolCallId = `call-${name}`) {
    const tool = this.tools.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    try {
      const result = await tool.execute(toolCallId, params, undefined, undefined, this.ctx);
      return { text: result.content.map((c) => c.text).join(""), isError: false };
    } catch (error) {
      return { text: (error as Error).message, isError: true };
    }
  }
}

let stamp = 1_000;

/** An assistant message as pi reports it. */
export function assistant(
  stopReason: string,
  options: { toolCall?: boolean; usage?: Record<string, number> } = {},
): PiAssistantMessage {
  return {
    role: "assistant",
    content: options.toolCall
      ? [{ type: "toolCall", id: "t1", name: "todo_write", arguments: {} }]
      : [{ type: "text", text: "ok" }],
    stopReason,
    usage: options.usage ?? {
      input: 60,
      output: 10,
      cacheRead: 40,
      cacheWrite: 0,
      totalTokens: 110,
    },
    timestamp: ++stamp,
  };
}

/** The custom message pi would build from a queued follow-up. */
export function asQueued(sent: FakePi["sent"][number]): PiMessage {
  return { role: "custom", ...sent.message, timestamp: ++stamp };
}
