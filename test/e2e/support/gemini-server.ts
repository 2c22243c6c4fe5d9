import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted Gemini API (`models/{model}:streamGenerateContent?alt=sse` and
 * `:generateContent`) on 127.0.0.1: Gemini CLI under test talks to it through
 * `GOOGLE_GEMINI_BASE_URL`, each test decides every reply, and every request is
 * recorded so tests assert on what the model was actually sent.
 */

export type GeminiPart =
  | { text: string }
  | { functionCall: { name: string; args: Record<string, unknown> } };

export type GeminiReply =
  | {
      parts: GeminiPart[];
      /** Default STOP. */
      finishReason?: string;
      /** Wait this long before the first byte. */
      delayMs?: number;
      /** Stream nothing and keep the response open until the client goes away. */
      hang?: boolean;
    }
  | { error: { status: number; message: string } };

export interface GeminiContent {
  role?: string;
  parts?: Record<string, unknown>[];
}

export interface GeminiRequestBody {
  contents?: GeminiContent[];
  systemInstruction?: unknown;
  tools?: { functionDeclarations?: { name: string }[] }[];
  generationConfig?: Record<string, unknown>;
}

/** What a responder sees about one main-loop streaming call. */
export interface GeminiCall {
  model: string;
  body: GeminiRequestBody;
  /** Position among the main-loop calls (0-based). */
  turn: number;
  /** The text of the last user content (the prompt, a nudge, or tool results as JSON). */
  lastUserText: string;
}

export type GeminiResponder = (call: GeminiCall) => GeminiReply;

export interface GeminiServerOptions {
  script: GeminiReply[] | GeminiResponder;
  /** Reply once a list script runs out. Default: a plain "Done." */
  fallback?: GeminiReply;
}

export interface RecordedGeminiRequest {
  method: string;
  path: string;
  model: string | null;
  streaming: boolean;
  body: unknown;
}

export interface GeminiServer {
  /** Base URL for GOOGLE_GEMINI_BASE_URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  requests: RecordedGeminiRequest[];
  /** The main-loop calls (streaming, with tools), in arrival order. */
  turns(): GeminiCall[];
  foreignPeers: string[];
  close(): Promise<void>;
}

export const say = (text: string): GeminiPart => ({ text });
export const call = (name: string, args: Record<string, unknown>): GeminiPart => ({
  functionCall: { name, args },
});
export const answer = (...parts: GeminiPart[]): GeminiReply => ({ parts });

const USAGE = { promptTokenCount: 120, candidatesTokenCount: 20, totalTokenCount: 140 };

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The text of the last user content: its text parts, else its function responses as JSON. */
export function lastUserText(body: GeminiRequestBody): string {
  const users = (body.contents ?? []).filter((c) => c.role === "user");
  const last = users.at(-1);
  if (last === undefined) return "";
  return (last.parts ?? [])
    .map((p) => (typeof p.text === "string" ? p.text : JSON.stringify(p)))
    .join("\n");
}

function candidate(parts: GeminiPart[], finishReason: string | undefined) {
  return {
    candidates: [
      {
        content: { role: "model", parts },
        ...(finishReason === undefined ? {} : { finishReason }),
        index: 0,
      },
    ],
    usageMetadata: USAGE,
    modelVersion: "scripted",
  };
}

function sendError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { code: status, message, status: "UNAVAILABLE" } }));
}

async function sendReply(
  req: IncomingMessage,
  res: ServerResponse,
  reply: GeminiReply,
  streaming: boolean,
) {
  if ("error" in reply) return sendError(res, reply.error.status, reply.error.message);
  if (reply.delayMs !== undefined) await new Promise((r) => setTimeout(r, reply.delayMs));
  if (reply.hang === true) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.flushHeaders();
    await new Promise<void>((resolve) => {
      req.on("close", resolve);
      res.on("close", resolve);
    });
    return;
  }
  const finish = reply.finishReason ?? "STOP";
  if (!streaming) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(candidate(reply.parts, finish)));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  // Each part in its own chunk, the finish reason on the last one, as the real API streams.
  reply.parts.forEach((part, i) => {
    const last = i === reply.parts.length - 1;
    res.write(`data: ${JSON.stringify(candidate([part], last ? finish : undefined))}\r\n\r\n`);
  });
  res.end();
}

/** Side calls (no tools offered): the CLI's own helpers, answered with JSON that says "user speaks next". */
const SIDE_REPLY: GeminiReply = answer(
  say(JSON.stringify({ next_speaker: "user", reasoning: "scripted", complexity: "simple" })),
);

export async function startGeminiServer(options: GeminiServerOptions): Promise<GeminiServer> {
  const requests: RecordedGeminiRequest[] = [];
  const calls: GeminiCall[] = [];
  const foreignPeers: string[] = [];
  const sockets = new Set<import("node:net").Socket>();
  let listIndex = 0;
  const fallback = options.fallback ?? answer(say("Done."));

  const server = createServer(async (req, res) => {
    const peer = req.socket.remoteAddress ?? "";
    if (!/^(::ffff:)?127\.0\.0\.1$|^::1$/.test(peer)) foreignPeers.push(peer);
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = raw === "" ? null : JSON.parse(raw);
    } catch {
      // Recorded as text.
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const match = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(
      url.pathname,
    );
    const model = match?.[1] ?? null;
    const method = match?.[2] ?? null;
    requests.push({
      method: req.method ?? "",
      path: url.pathname,
      model,
      streaming: method === "streamGenerateContent",
      body,
    });
    if (method === "countTokens") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ totalTokens: 100 }));
      return;
    }
    if (method === null) return sendError(res, 404, `not scripted: ${url.pathname}`);
    const request = (body ?? {}) as GeminiRequestBody;
    const offersTools = (request.tools ?? []).some(
      (t) => (t.functionDeclarations?.length ?? 0) > 0,
    );
    if (!offersTools) return sendReply(req, res, SIDE_REPLY, method === "streamGenerateContent");
    const geminiCall: GeminiCall = {
      model: model ?? "",
      body: request,
      turn: calls.length,
      lastUserText: lastUserText(request),
    };
    calls.push(geminiCall);
    let reply: GeminiReply;
    if (typeof options.script === "function") {
      reply = options.script(geminiCall);
    } else {
      reply = options.script[listIndex] ?? fallback;
      listIndex++;
    }
    await sendReply(req, res, reply, method === "streamGenerateContent");
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    turns: () => [...calls],
    foreignPeers,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
