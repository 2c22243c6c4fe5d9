import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted Anthropic Messages API on 127.0.0.1: host programs under test talk
 * to it instead of a real model, each test decides every reply, and every
 * request is recorded so tests assert on what the model was actually sent.
 */

export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; name: string; input: unknown; id?: string };

export interface ScriptedUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export type ScriptedReply =
  | {
      content: ScriptedBlock[];
      /** Default: `tool_use` when a tool_use block is present, else `end_turn`. */
      stopReason?: string;
      usage?: ScriptedUsage;
      /** Wait this long before the first byte. */
      delayMs?: number;
      /** Hold the reply until this settles: orders events across processes without timing. */
      gate?: Promise<unknown>;
      /**
       * Stream the first events, then keep the response open until the client
       * goes away (or the server closes): the model is "still thinking".
       */
      hang?: boolean;
    }
  | {
      /** An HTTP error with an Anthropic-shaped error body. */
      error: { status: number; type: string; message: string };
    };

/** One request the server received, body parsed when it was JSON. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  at: number;
}

/** What a responder sees about a `POST /v1/messages` call. */
export interface MessagesCall {
  body: MessagesBody;
  /** Position among the calls the server classed as main-loop turns (0-based). */
  turn: number;
  request: RecordedRequest;
}

export interface MessagesBody {
  model?: string;
  stream?: boolean;
  system?: unknown;
  messages: { role: string; content: unknown }[];
  tools?: { name: string }[];
  max_tokens?: number;
}

export type Responder = (call: MessagesCall) => ScriptedReply;

export interface AnthropicServerOptions {
  /**
   * Replies for main-loop turns, in order; or a function choosing each reply.
   * When a list runs out, the server answers with `fallback`.
   */
  script: ScriptedReply[] | Responder;
  /** Reply after the script is exhausted. Default: a plain "Done." text turn. */
  fallback?: ScriptedReply;
  /**
   * Decides which `/v1/messages` calls are main-loop turns. Default: calls that
   * offer tools (hosts make tool-less side calls for titles and summaries).
   * Side calls get `sideReply`.
   */
  isTurn?: (body: MessagesBody) => boolean;
  sideReply?: ScriptedReply;
}

export interface AnthropicServer {
  /** Base URL, e.g. `http://127.0.0.1:41234` (no trailing slash, no `/v1`). */
  url: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  /** The main-loop `/v1/messages` calls, in arrival order. */
  turns(): MessagesBody[];
  /** Non-loopback peers seen (must stay empty). */
  foreignPeers: string[];
  close(): Promise<void>;
}

export const text = (value: string): ScriptedBlock => ({ type: "text", text: value });
export const toolUse = (name: string, input: unknown, id?: string): ScriptedBlock =>
  id === undefined ? { type: "tool_use", name, input } : { type: "tool_use", name, input, id };
export const reply = (...content: ScriptedBlock[]): ScriptedReply => ({ content });

const DEFAULT_USAGE = { input_tokens: 100, output_tokens: 20 };

function defaultIsTurn(body: MessagesBody): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function messageId(): string {
  return `msg_${randomUUID().replace(/-/g, "")}`;
}

function toolId(): string {
  return `toolu_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
}

function withIds(blocks: ScriptedBlock[]): ScriptedBlock[] {
  return blocks.map((b) =>
    b.type === "tool_use" && b.id === undefined ? { ...b, id: toolId() } : b,
  );
}

function stopReasonOf(blocks: ScriptedBlock[], explicit?: string): string {
  if (explicit !== undefined) return explicit;
  return blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
}

function usageOf(usage?: ScriptedUsage): Required<ScriptedUsage> {
  return {
    input_tokens: usage?.input_tokens ?? DEFAULT_USAGE.input_tokens,
    output_tokens: usage?.output_tokens ?? DEFAULT_USAGE.output_tokens,
    cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
  };
}

function blockJson(block: ScriptedBlock): Record<string, unknown> {
  return block.type === "text"
    ? { type: "text", text: block.text }
    : { type: "tool_use", id: block.id, name: block.name, input: block.input };
}

function sendJsonMessage(
  res: ServerResponse,
  model: string,
  reply: Extract<ScriptedReply, { content: unknown }>,
): void {
  const content = withIds(reply.content);
  const body = {
    id: messageId(),
    type: "message",
    role: "assistant",
    model,
    content: content.map(blockJson),
    stop_reason: stopReasonOf(content, reply.stopReason),
    stop_sequence: null,
    usage: usageOf(reply.usage),
  };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Streams one reply as Messages API server-sent events. */
function streamMessage(
  res: ServerResponse,
  model: string,
  reply: Extract<ScriptedReply, { content: unknown }>,
): void {
  const content = withIds(reply.content);
  const usage = usageOf(reply.usage);
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  sse(res, "message_start", {
    type: "message_start",
    message: {
      id: messageId(),
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  if (reply.hang) {
    sse(res, "ping", { type: "ping" });
    return;
  }
  content.forEach((block, index) => {
    if (block.type === "text") {
      sse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      sse(res, "content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: block.text },
      });
    } else {
      sse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      sse(res, "content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) },
      });
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  sse(res, "message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReasonOf(content, reply.stopReason), stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
}

/** Rough token estimate for count_tokens: hosts only use it for display and compaction. */
function estimateTokens(raw: string): number {
  return Math.max(1, Math.ceil(raw.length / 4));
}

export async function startAnthropicServer(
  options: AnthropicServerOptions,
): Promise<AnthropicServer> {
  const requests: RecordedRequest[] = [];
  const turnBodies: MessagesBody[] = [];
  const foreignPeers: string[] = [];
  const open = new Set<ServerResponse>();
  const isTurn = options.isTurn ?? defaultIsTurn;
  const fallback = options.fallback ?? reply(text("Done."));
  const sideReply = options.sideReply ?? reply(text("Summary"));

  const choose = (call: MessagesCall): ScriptedReply => {
    if (typeof options.script === "function") return options.script(call);
    return options.script[call.turn] ?? fallback;
  };

  const server = createServer(async (req, res) => {
    const peer = req.socket.remoteAddress ?? "";
    if (peer !== "127.0.0.1" && peer !== "::ffff:127.0.0.1" && peer !== "::1") {
      foreignPeers.push(peer);
      res.writeHead(403).end();
      return;
    }
    open.add(res);
    res.on("close", () => open.delete(res));
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = raw === "" ? null : JSON.parse(raw);
    } catch {
      // Not JSON: keep the text.
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const record: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      headers: { ...req.headers },
      body,
      at: Date.now(),
    };
    requests.push(record);

    if (record.method === "HEAD" || (record.method === "GET" && url.pathname === "/")) {
      res.writeHead(200).end();
      return;
    }
    if (record.method === "POST" && url.pathname === "/v1/messages/count_tokens") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ input_tokens: estimateTokens(raw) }));
      return;
    }
    if (record.method === "POST" && url.pathname === "/v1/messages") {
      const messages = body as MessagesBody;
      const main = isTurn(messages);
      let chosen: ScriptedReply;
      if (main) {
        const call: MessagesCall = { body: messages, turn: turnBodies.length, request: record };
        turnBodies.push(messages);
        try {
          chosen = choose(call);
        } catch (error) {
          chosen = {
            error: { status: 500, type: "api_error", message: `script failed: ${String(error)}` },
          };
        }
      } else {
        chosen = sideReply;
      }
      if ("error" in chosen) {
        res.writeHead(chosen.error.status, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            type: "error",
            error: { type: chosen.error.type, message: chosen.error.message },
          }),
        );
        return;
      }
      if (chosen.gate) await chosen.gate.catch(() => undefined);
      if (chosen.delayMs) await new Promise((r) => setTimeout(r, chosen.delayMs));
      const model = messages.model ?? "claude-test";
      if (messages.stream) streamMessage(res, model, chosen);
      else sendJsonMessage(res, model, chosen);
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "no" } }));
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    turns: () => [...turnBodies],
    foreignPeers,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every user-side text the model was sent in one request (strings and text blocks). */
export function userTexts(body: MessagesBody): string[] {
  const out: string[] = [];
  for (const message of body.messages) {
    if (message.role !== "user") continue;
    if (typeof message.content === "string") out.push(message.content);
    else if (Array.isArray(message.content)) {
      for (const block of message.content as { type?: string; text?: unknown }[]) {
        if (block?.type === "text" && typeof block.text === "string") out.push(block.text);
      }
    }
  }
  return out;
}

/** The text of the last user message of a request, all text blocks joined. */
export function lastUserText(body: MessagesBody): string {
  const last = [...body.messages].reverse().find((m) => m.role === "user");
  if (!last) return "";
  return userTexts({ messages: [last] }).join("\n");
}
