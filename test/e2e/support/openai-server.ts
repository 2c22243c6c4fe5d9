/**
 * A scripted OpenAI-compatible chat-completions server for end-to-end tests.
 *
 * Hosts that speak `openai-completions` (OpenCode through `@ai-sdk/openai-compatible`,
 * pi) are pointed at it with a base URL of `server.baseURL` (`http://127.0.0.1:PORT/v1`).
 * Each test scripts the model's replies and then asserts on what the host sent:
 * every request is recorded, in order, with its parsed JSON body.
 *
 * Endpoints: `POST /v1/chat/completions` (streaming SSE or plain JSON, following the
 * request's `stream` flag), `GET /v1/models`. Anything else answers 404 and is
 * still recorded. Only loopback is bound.
 *
 * ```ts
 * const server = await startOpenAiServer({ models: ["scripted"] });
 * server.script([
 *   toolCallReply("todowrite", { todos: [...] }),
 *   textReply("All done."),
 * ]);
 * // ... drive the host ...
 * expect(server.chatRequests()).toHaveLength(2);
 * await server.close();
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// ---------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------

export interface ScriptedToolCall {
  name: string;
  /** Serialized with JSON.stringify unless already a string. */
  arguments: unknown;
  /** Defaults to a unique `call_<n>`. */
  id?: string;
}

export interface ScriptedUsage {
  /** Input tokens, cached ones included (OpenAI's `prompt_tokens`). */
  promptTokens: number;
  completionTokens: number;
  /** Part of `promptTokens` served from cache (`prompt_tokens_details.cached_tokens`). */
  cachedTokens?: number;
}

/** One model reply. Exactly one of the shapes below applies; `error` and `stall` win. */
export interface ScriptedReply {
  /** Assistant text, streamed in a few chunks. */
  text?: string;
  /** Tool calls, streamed after the text. */
  toolCalls?: ScriptedToolCall[];
  /** Default: `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: "stop" | "length" | "tool_calls" | "content_filter";
  /** Default: 100 prompt / 10 completion tokens, no cache. */
  usage?: ScriptedUsage;
  /** Answer with this HTTP error instead of a completion (OpenAI error body). */
  error?: {
    status: number;
    message?: string;
    code?: string;
    type?: string;
    /** Extra response headers (e.g. `retry-after-ms`). */
    headers?: Record<string, string>;
  };
  /**
   * Start streaming (role chunk and any `text`), then never finish: the response stays
   * open until the client goes away or the server closes. For abort scenarios.
   */
  stall?: boolean;
  /** Awaited after the request is recorded and before anything is answered. */
  before?: () => Promise<void>;
}

/** A request received by the server. */
export interface RecordedRequest {
  /** Position among all requests, from 0. */
  seq: number;
  method: string;
  /** Path without the query string. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or the raw text when it is not JSON, or null when empty. */
  body: unknown;
  /** Wall-clock arrival time (ms). */
  at: number;
}

/** The parts of an OpenAI chat message the tests look at. */
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  tools?: { type: string; function: { name: string; [key: string]: unknown } }[];
  [key: string]: unknown;
}

/** A recorded `POST /v1/chat/completions`, with its body typed and the reply it got. */
export interface ChatRequest extends RecordedRequest {
  body: ChatRequestBody;
  /** The reply the script produced for it. */
  reply: ScriptedReply;
  /** Wall-clock time (ms) the reply's last byte was handed to the client; unset while it streams. */
  finishedAt?: number;
  /** Wall-clock time (ms) a stalled reply's connection closed (the client gave up, or `close`). */
  abortedAt?: number;
}

/**
 * Chooses the reply for a chat request. `index` counts the chat requests the
 * script has answered so far (requests answered by `intercept` are not counted).
 */
export type ReplyFunction = (request: ChatRequest, index: number) => ScriptedReply;

/** A queue of replies consumed in order (then `fallback`), or a function of the request. */
export type Script = ScriptedReply[] | ReplyFunction;

export interface OpenAiServerOptions {
  /** Model ids listed by `/v1/models`. Default `["scripted"]`. */
  models?: string[];
  /** Initial script; default none (every reply is the fallback). */
  script?: Script;
  /** Reply once a queue script runs dry. Default `textReply("Done.")`. */
  fallback?: ScriptedReply;
  /**
   * Answers side requests before the script sees them (for example a host's
   * title-generation call to its small model). Return undefined to let the
   * script answer. Intercepted requests are recorded but do not consume the queue.
   */
  intercept?: (request: ChatRequest) => ScriptedReply | undefined;
  /** Characters per streamed text chunk. Default 16. */
  chunkSize?: number;
}

export interface OpenAiServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** `http://127.0.0.1:PORT/v1`: what a host's `baseURL` / `baseUrl` wants. */
  readonly baseURL: string;
  readonly port: number;
  /** Every request received, in arrival order (copies are not made: do not mutate). */
  readonly requests: readonly RecordedRequest[];
  /** Chat-completion requests only. `scripted: true` leaves out intercepted ones. */
  chatRequests(filter?: { scripted?: boolean }): ChatRequest[];
  /** Replaces the script (and resets the queue index). */
  script(script: Script): void;
  /** Appends replies to the current queue (turning a function script into a queue). */
  enqueue(...replies: ScriptedReply[]): void;
  /** Queue replies still unused. */
  pending(): number;
  /**
   * Resolves once at least `count` chat requests matching `filter` have arrived.
   * Rejects after `timeoutMs` (default 30 s) with the requests seen so far, so a
   * hung host fails the test instead of stalling it.
   */
  waitForChatRequests(
    count: number,
    options?: { timeoutMs?: number; scripted?: boolean },
  ): Promise<ChatRequest[]>;
  /** Forgets recorded requests (the script is kept). */
  clearRequests(): void;
  /** Ends stalled responses and stops listening. */
  close(): Promise<void>;
}

/** A plain text answer that ends the turn (`finish_reason: "stop"`). */
export function textReply(text: string, usage?: ScriptedUsage): ScriptedReply {
  return usage ? { text, usage } : { text };
}

/** One tool call (`finish_reason: "tool_calls"`), optionally with leading text. */
export function toolCallReply(
  name: string,
  args: unknown,
  options: { text?: string; id?: string; usage?: ScriptedUsage } = {},
): ScriptedReply {
  const call: ScriptedToolCall = { name, arguments: args };
  if (options.id !== undefined) call.id = options.id;
  const reply: ScriptedReply = { toolCalls: [call] };
  if (options.text !== undefined) reply.text = options.text;
  if (options.usage !== undefined) reply.usage = options.usage;
  return reply;
}

/** An HTTP error reply in OpenAI's error shape. */
export function errorReply(
  status: number,
  message = "scripted error",
  code?: string,
): ScriptedReply {
  return { error: code === undefined ? { status, message } : { status, message, code } };
}

/** The text of a chat message's content (string content or the text parts joined by "\n"). */
export function messageText(message: ChatMessage | undefined): string {
  if (!message) return "";
  const content = message.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : "",
      )
      .filter((text) => text.length > 0)
      .join("\n");
  }
  return "";
}

/** The last message with role `user` in a request, or undefined. */
export function lastUserMessage(request: ChatRequest): ChatMessage | undefined {
  const messages = request.body.messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "user") return messages[i];
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------

const DEFAULT_USAGE: ScriptedUsage = { promptTokens: 100, completionTokens: 10 };

/** Starts the server on an ephemeral loopback port. */
export async function startOpenAiServer(options: OpenAiServerOptions = {}): Promise<OpenAiServer> {
  const models = options.models ?? ["scripted"];
  const fallback = options.fallback ?? textReply("Done.");
  const chunkSize = Math.max(1, options.chunkSize ?? 16);
  const requests: RecordedRequest[] = [];
  const chats: { request: ChatRequest; scripted: boolean }[] = [];
  const waiters = new Set<() => void>();
  const open = new Set<ServerResponse>();
  let script: Script = options.script ?? [];
  let scriptIndex = 0;
  let callCounter = 0;
  let completionCounter = 0;

  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };

  const chooseReply = (request: ChatRequest): { reply: ScriptedReply; scripted: boolean } => {
    const intercepted = options.intercept?.(request);
    if (intercepted) return { reply: intercepted, scripted: false };
    const index = scriptIndex++;
    if (typeof script === "function") return { reply: script(request, index), scripted: true };
    return { reply: script[index] ?? fallback, scripted: true };
  };

  const handleChat = async (
    req: IncomingMessage,
    res: ServerResponse,
    recorded: RecordedRequest,
  ) => {
    const body = recorded.body;
    if (!isChatBody(body)) {
      sendJson(res, 400, {
        error: {
          message: "body must be a JSON object with model and messages",
          type: "invalid_request_error",
        },
      });
      return;
    }
    const request = recorded as ChatRequest;
    request.reply = fallback;
    const { reply, scripted } = chooseReply(request);
    request.reply = reply;
    chats.push({ request, scripted });
    res.once("finish", () => {
      request.finishedAt = Date.now();
    });
    notify();
    // Something else happens while the model "thinks" (another writer, for race scenarios).
    if (reply.before) await reply.before();

    if (reply.error) {
      sendJson(
        res,
        reply.error.status,
        {
          error: {
            message: reply.error.message ?? "scripted error",
            type: reply.error.type ?? "invalid_request_error",
            code: reply.error.code ?? null,
            param: null,
          },
        },
        reply.error.headers,
      );
      return;
    }

    const id = `chatcmpl-${++completionCounter}`;
    const created = Math.floor(Date.now() / 1000);
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${++callCounter}`,
      type: "function" as const,
      function: {
        name: call.name,
        arguments:
          typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
      },
    }));
    const finishReason = reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop");
    const usage = usageBody(reply.usage ?? DEFAULT_USAGE);

    if (body.stream !== true) {
      if (reply.stall) {
        open.add(res);
        req.on("close", () => open.delete(res));
        res.once("close", () => {
          request.abortedAt ??= Date.now();
        });
        return;
      }
      sendJson(res, 200, {
        id,
        object: "chat.completion",
        created,
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: reply.text ?? null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finishReason,
          },
        ],
        usage,
      });
      return;
    }

    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra = {}) => {
      res.write(
        `data: ${JSON.stringify({
          id,
          object: "chat.completion.chunk",
          created,
          model: body.model,
          choices: [{ index: 0, delta, finish_reason: finish }],
          ...extra,
        })}\n\n`,
      );
    };
    chunk({ role: "assistant", content: "" });
    const text = reply.text ?? "";
    for (let i = 0; i < text.length; i += chunkSize) {
      chunk({ content: text.slice(i, i + chunkSize) });
    }
    if (reply.stall) {
      open.add(res);
      req.on("close", () => open.delete(res));
      res.once("close", () => {
        request.abortedAt ??= Date.now();
      });
      return;
    }
    toolCalls.forEach((call, index) => {
      chunk({ tool_calls: [{ index, ...call }] });
    });
    chunk({}, finishReason);
    const includeUsage =
      typeof body.stream_options === "object" &&
      body.stream_options !== null &&
      (body.stream_options as { include_usage?: unknown }).include_usage === true;
    if (includeUsage) {
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices: [], usage })}\n\n`,
      );
    }
    res.write("data: [DONE]\n\n");
    res.end();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (data: Buffer) => chunks.push(data));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const recorded: RecordedRequest = {
        seq: requests.length,
        method: req.method ?? "GET",
        path,
        headers: { ...req.headers },
        body: parseBody(raw),
        at: Date.now(),
      };
      requests.push(recorded);
      const route = path.replace(/\/+$/, "");
      if (req.method === "POST" && route.endsWith("/chat/completions")) {
        void handleChat(req, res, recorded);
      } else if (req.method === "GET" && route.endsWith("/models")) {
        sendJson(res, 200, {
          object: "list",
          data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "scripted" })),
        });
      } else {
        notify();
        sendJson(res, 404, {
          error: { message: `no route ${req.method} ${path}`, type: "not_found" },
        });
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  const selectChats = (scriptedOnly: boolean) =>
    chats.filter((c) => !scriptedOnly || c.scripted).map((c) => c.request);

  return {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    chatRequests(filter = {}) {
      return selectChats(filter.scripted === true);
    },
    script(next) {
      script = Array.isArray(next) ? [...next] : next;
      scriptIndex = 0;
    },
    enqueue(...replies) {
      if (typeof script === "function") {
        script = [];
        scriptIndex = 0;
      }
      script.push(...replies);
    },
    pending() {
      return typeof script === "function" ? 0 : Math.max(0, script.length - scriptIndex);
    },
    waitForChatRequests(count, waitOptions = {}) {
      const scriptedOnly = waitOptions.scripted === true;
      const timeoutMs = waitOptions.timeoutMs ?? 30_000;
      return new Promise((resolve, reject) => {
        const check = () => {
          const seen = selectChats(scriptedOnly);
          if (seen.length < count) return false;
          cleanup();
          resolve(seen);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          const seen = selectChats(scriptedOnly);
          reject(
            new Error(
              `expected ${count} chat requests, got ${seen.length}: ${seen
                .map((r) => JSON.stringify(messageText(lastUserMessage(r)).slice(0, 80)))
                .join(", ")}`,
            ),
          );
        }, timeoutMs);
        const waiter = () => {
          check();
        };
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        waiters.add(waiter);
        check();
      });
    },
    clearRequests() {
      requests.length = 0;
      chats.length = 0;
    },
    async close() {
      for (const res of open) res.destroy();
      open.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseBody(raw: string): unknown {
  if (raw.length === 0) return null;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function isChatBody(body: unknown): body is ChatRequestBody {
  return (
    typeof body === "object" &&
    body !== null &&
    typeof (body as { model?: unknown }).model === "string" &&
    Array.isArray((body as { messages?: unknown }).messages)
  );
}

function usageBody(usage: ScriptedUsage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
  };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}
