/**
 * A scripted OpenAI Responses API server for end-to-end tests of hosts that
 * speak `wire_api = "responses"` (Codex CLI). Point a model provider's
 * `base_url` at `server.baseURL` (`http://127.0.0.1:PORT/v1`).
 *
 * `POST /v1/responses` streams SSE (`response.created`, `response.output_item.added`,
 * `response.output_text.delta`, `response.output_item.done`, `response.completed`
 * with usage). Every request is recorded with its parsed body; anything else
 * answers 404 and is recorded too. Only loopback is bound.
 *
 * ```ts
 * const server = await startResponsesServer((request, index) =>
 *   index === 0 ? callReply("update_plan", { plan: [...] }) : textReply("Done."));
 * ```
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedCall {
  name: string;
  /** Codex groups some tools in a namespace (`multi_agent_v1` for spawn_agent). */
  namespace?: string;
  arguments: unknown;
}

export interface ScriptedResponse {
  text?: string;
  calls?: ScriptedCall[];
  /** Start the response and never finish it (until the client goes away or the server closes). */
  stall?: boolean;
  /** Hold the response this long after `response.created` (a model that takes its time). */
  delayMs?: number;
  /** Default 100 input / 10 output tokens. */
  usage?: { input: number; output: number; cached?: number };
}

/** One input item of a request (`message`, `function_call`, `function_call_output`, ...). */
export interface InputItem {
  type?: string;
  role?: string;
  content?: unknown;
  name?: string;
  call_id?: string;
  output?: unknown;
  [key: string]: unknown;
}

export interface ResponsesRequest {
  seq: number;
  /** The request's parsed body. */
  body: { model?: string; input?: InputItem[]; tools?: unknown[]; [key: string]: unknown };
  /** Codex's `x-codex-turn-metadata` header, parsed (session, thread, turn ids). */
  turnMetadata: Record<string, unknown>;
  at: number;
}

/** Chooses the reply; `index` counts the requests answered so far. */
export type ResponsesScript = (request: ResponsesRequest, index: number) => ScriptedResponse;

export interface ResponsesServer {
  readonly baseURL: string;
  readonly requests: readonly ResponsesRequest[];
  /** Requests to paths other than /v1/responses (should stay empty). */
  readonly stray: readonly string[];
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function textReply(text: string): ScriptedResponse {
  return { text };
}

export function callReply(name: string, args: unknown, namespace?: string): ScriptedResponse {
  return { calls: [{ name, arguments: args, ...(namespace ? { namespace } : {}) }] };
}

/** The texts of a content value (a string or `input_text`/`output_text` parts). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (typeof part?.text === "string" ? (part.text as string) : ""))
    .join("\n");
}

/** Texts of the user messages in a request, oldest first. */
export function userTexts(request: ResponsesRequest): string[] {
  return (request.body.input ?? [])
    .filter((item) => item.type === "message" && item.role === "user")
    .map((item) => contentText(item.content));
}

/** The Stop-hook reasons Codex fed back to the model (`<hook_prompt ...>reason</hook_prompt>`). */
export function hookPrompts(request: ResponsesRequest): string[] {
  return userTexts(request)
    .filter((text) => text.startsWith("<hook_prompt"))
    .map((text) => text.replace(/^<hook_prompt[^>]*>/, "").replace(/<\/hook_prompt>$/, ""));
}

/** True when the request comes from a subagent's thread rather than the session's own. */
export function fromSubagent(request: ResponsesRequest): boolean {
  const { session_id: session, thread_id: thread } = request.turnMetadata;
  return typeof thread === "string" && typeof session === "string" && thread !== session;
}

/** The outputs of calls to `name` in a request's input (as strings). */
export function callOutputs(request: ResponsesRequest, name: string): string[] {
  const input = request.body.input ?? [];
  const ids = new Set(
    input.filter((i) => i.type === "function_call" && i.name === name).map((i) => i.call_id),
  );
  return input
    .filter((i) => i.type === "function_call_output" && ids.has(i.call_id))
    .map((i) => (typeof i.output === "string" ? i.output : JSON.stringify(i.output)));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export async function startResponsesServer(script: ResponsesScript): Promise<ResponsesServer> {
  const requests: ResponsesRequest[] = [];
  const stray: string[] = [];
  const open = new Set<ServerResponse>();
  const waiters = new Set<() => void>();
  let calls = 0;

  const stream = (res: ServerResponse, reply: ScriptedResponse, n: number) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const id = `resp_${n}`;
    send("response.created", { response: { id } });
    if (reply.stall) {
      open.add(res);
      res.on("close", () => open.delete(res));
      return;
    }
    if (reply.delayMs !== undefined && reply.delayMs > 0) {
      open.add(res);
      const { delayMs: _held, ...rest } = reply;
      const timer = setTimeout(() => {
        open.delete(res);
        if (!res.destroyed) finish(res, rest, n, id);
      }, reply.delayMs);
      res.on("close", () => clearTimeout(timer));
      return;
    }
    finish(res, reply, n, id);
  };

  const finish = (res: ServerResponse, reply: ScriptedResponse, n: number, id: string) => {
    const send = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const items: Record<string, unknown>[] = [];
    if (reply.text !== undefined) {
      items.push({
        type: "message",
        role: "assistant",
        id: `msg_${n}`,
        content: [{ type: "output_text", text: reply.text, annotations: [] }],
      });
    }
    for (const call of reply.calls ?? []) {
      calls++;
      items.push({
        type: "function_call",
        id: `fc_${calls}`,
        call_id: `call_${calls}`,
        name: call.name,
        ...(call.namespace ? { namespace: call.namespace } : {}),
        arguments:
          typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
      });
    }
    items.forEach((item, index) => {
      send("response.output_item.added", { output_index: index, item });
      if (item.type === "message") {
        send("response.output_text.delta", {
          output_index: index,
          item_id: item.id,
          content_index: 0,
          delta: reply.text,
        });
      }
      send("response.output_item.done", { output_index: index, item });
    });
    const usage = reply.usage ?? { input: 100, output: 10 };
    send("response.completed", {
      response: {
        id,
        usage: {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: usage.cached ?? 0 },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.output,
        },
      },
    });
    res.end();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      if (req.method !== "POST" || !path.endsWith("/responses")) {
        stray.push(`${req.method} ${path}`);
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${path}` } }));
        return;
      }
      const header = req.headers["x-codex-turn-metadata"];
      const metadata = parseJson(typeof header === "string" ? header : "{}");
      const request: ResponsesRequest = {
        seq: requests.length,
        body: (parseJson(Buffer.concat(chunks).toString("utf8")) ?? {}) as ResponsesRequest["body"],
        turnMetadata: (metadata ?? {}) as Record<string, unknown>,
        at: Date.now(),
      };
      requests.push(request);
      for (const waiter of [...waiters]) waiter();
      let reply: ScriptedResponse;
      try {
        reply = script(request, request.seq);
      } catch (error) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(error) } }));
        return;
      }
      stream(res, reply, request.seq);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    stray,
    waitForRequests: (count, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`waited for ${count} requests, saw ${requests.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: async () => {
      for (const res of open) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
