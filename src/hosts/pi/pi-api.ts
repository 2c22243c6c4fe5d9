/**
 * The slice of pi's extension API (`@mariozechner/pi-coding-agent` 0.73) this
 * extension uses, typed structurally: the package needs no dependency on pi,
 * and pi's real `ExtensionAPI` object satisfies these shapes at run time.
 */

export interface PiTextContent {
  type: "text";
  text: string;
}

/** An assistant message as pi reports it at `message_end` / `turn_end`. */
export interface PiAssistantMessage {
  role: "assistant";
  content: { type: string; [key: string]: unknown }[];
  /** `stop | length | toolUse | error | aborted` */
  stopReason: unknown;
  /** `{ input, output, cacheRead, cacheWrite, totalTokens, cost }`; `input` excludes cached tokens. */
  usage?: unknown;
  responseId?: string;
  /** With `stopReason: "error"`: the provider's error, as text (`429 status code (no body)`). */
  errorMessage?: string;
  timestamp: number;
}

/** A message an extension injects; pi sends it to the model as a user message. */
export interface PiCustomMessage {
  role: "custom";
  customType: string;
  content: string | PiTextContent[];
  display: boolean;
  details?: unknown;
  timestamp: number;
}

export type PiMessage =
  | PiAssistantMessage
  | PiCustomMessage
  | { role: "user" | "toolResult" | (string & {}); [key: string]: unknown };

export interface PiContext {
  sessionManager: { getSessionId(): string };
  /** The folder pi works in (its project). */
  cwd?: string;
  /** Aborts the current agent run (what Esc does). */
  abort(): void;
  hasUI: boolean;
  ui: { notify(message: string, type?: "info" | "warning" | "error"): void };
}

export interface PiToolResult {
  content: PiTextContent[];
  details: unknown;
}

export interface PiToolDefinition {
  name: string;
  label: string;
  description: string;
  promptSnippet?: string;
  promptGuidelines?: string[];
  /** JSON Schema (pi validates plain JSON Schema as well as TypeBox). */
  parameters: Record<string, unknown>;
  /** Throwing marks the result as an error; the message is what the model reads. */
  execute(
    toolCallId: string,
    params: unknown,
    signal: AbortSignal | undefined,
    onUpdate: unknown,
    ctx: PiContext,
  ): Promise<PiToolResult>;
}

export interface PiSendOptions {
  /** `followUp`: delivered when the agent would otherwise stop. */
  deliverAs?: "steer" | "followUp" | "nextTurn";
  triggerTurn?: boolean;
}

export interface PiInputEvent {
  text: string;
  /** `interactive` (typed), `rpc`, or `extension` (sent by an extension). */
  source: string;
}

type Handler<E, R = unknown> = (event: E, ctx: PiContext) => R;

export interface PiExtensionApi {
  on(event: "session_start", handler: Handler<{ reason?: string }>): void;
  on(event: "session_shutdown", handler: Handler<{ reason?: string }>): void;
  on(event: "input", handler: Handler<PiInputEvent>): void;
  on(event: "context", handler: Handler<{ messages: PiMessage[] }, unknown>): void;
  on(event: "message_end", handler: Handler<{ message: PiMessage }>): void;
  on(event: "turn_end", handler: Handler<{ message: PiMessage; toolResults: unknown[] }>): void;
  /** Emitted before pi decides whether to retry the run's last error (0.73 and 1.x). */
  on(event: "agent_end", handler: Handler<{ messages: PiMessage[] }>): void;
  /** pi 1.x only: the run is over, after pi's own retries and overflow compaction. */
  /** pi 1.x returns a function that removes the handler; 0.73 returns nothing. */
  on(
    event: "agent_before_settle",
    handler: Handler<{ outcome?: string }>,
  ): undefined | (() => void);
  on(
    event: "tool_execution_end",
    handler: Handler<{ toolCallId: string; toolName: string; isError: boolean }>,
  ): void;
  registerTool(tool: PiToolDefinition): void;
  registerCommand(
    name: string,
    options: {
      description: string;
      handler: (args: string, ctx: PiContext) => Promise<void> | void;
    },
  ): void;
  sendMessage(
    message: { customType: string; content: string; display: boolean; details?: unknown },
    options?: PiSendOptions,
  ): void;
  /** The bus the extensions of one load share (0.73 and 1.x); handlers are called in `emit`. */
  events?: {
    emit(channel: string, data: unknown): void;
    on(channel: string, handler: (data: unknown) => unknown): unknown;
  };
  /** A flag's value; throws once pi replaced this extension's load (a reload, a new session). */
  getFlag?(name: string): unknown;
}
