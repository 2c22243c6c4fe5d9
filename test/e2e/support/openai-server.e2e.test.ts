import { afterEach, describe, expect, it } from "vitest";
import {
  errorReply,
  lastUserMessage,
  messageText,
  type OpenAiServer,
  startOpenAiServer,
  textReply,
  toolCallReply,
} from "./openai-server.js";
import { waitFor } from "./wait-for.js";

let server: OpenAiServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function chat(base: string, body: Record<string, unknown>, signal?: AbortSignal) {
  return fetch(`${base}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "scripted", ...body }),
    ...(signal ? { signal } : {}),
  });
}

interface Chunk {
  choices: {
    delta?: { content?: string; tool_calls?: unknown[] };
    finish_reason?: string | null;
  }[];
  usage?: unknown;
}

interface Completion {
  choices: {
    message: {
      content: string | null;
      tool_calls?: { function: { name: string; arguments: string } }[];
    };
    finish_reason: string;
  }[];
  usage: { total_tokens: number };
}

async function completion(response: Response): Promise<Completion> {
  return (await response.json()) as Completion;
}

/** Reads an SSE body into its JSON events, stopping at [DONE]. */
async function readEvents(response: Response): Promise<{ events: Chunk[]; done: boolean }> {
  const text = await response.text();
  const events: Chunk[] = [];
  let done = false;
  for (const block of text.split("\n\n")) {
    const line = block.trim();
    if (!line.startsWith("data: ")) continue;
    const data = line.slice("data: ".length);
    if (data === "[DONE]") {
      done = true;
      break;
    }
    events.push(JSON.parse(data) as Chunk);
  }
  return { events, done };
}

const user = (text: string) => ({ messages: [{ role: "user", content: text }] });

describe("scripted OpenAI-compatible server", () => {
  it("streams text in chunks with a stop finish and usage when asked", async () => {
    server = await startOpenAiServer({ chunkSize: 4 });
    server.script([
      textReply("hello world", { promptTokens: 50, completionTokens: 5, cachedTokens: 40 }),
    ]);
    const response = await chat(server.baseURL, {
      ...user("hi"),
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const { events, done } = await readEvents(response);
    expect(done).toBe(true);
    const content = events.map((e) => e.choices[0]?.delta?.content ?? "").join("");
    expect(content).toBe("hello world");
    expect(events.filter((e) => e.choices[0]?.delta?.content).length).toBeGreaterThan(1);
    expect(events.find((e) => e.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe("stop");
    expect(events.at(-1)?.usage).toEqual({
      prompt_tokens: 50,
      completion_tokens: 5,
      total_tokens: 55,
      prompt_tokens_details: { cached_tokens: 40 },
    });
  });

  it("streams tool calls with ids, names and JSON arguments, finishing with tool_calls", async () => {
    server = await startOpenAiServer();
    server.script([toolCallReply("todowrite", { todos: [{ content: "a" }] }, { id: "call_x" })]);
    const { events } = await readEvents(
      await chat(server.baseURL, { ...user("go"), stream: true }),
    );
    const calls = events.flatMap((e) => e.choices[0]?.delta?.tool_calls ?? []);
    expect(calls).toEqual([
      {
        index: 0,
        id: "call_x",
        type: "function",
        function: { name: "todowrite", arguments: '{"todos":[{"content":"a"}]}' },
      },
    ]);
    expect(events.find((e) => e.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe(
      "tool_calls",
    );
    // No usage chunk unless stream_options.include_usage is set.
    expect(events.some((e) => e.usage)).toBe(false);
  });

  it("answers non-streaming requests with one JSON completion", async () => {
    server = await startOpenAiServer();
    server.script([toolCallReply("read", { path: "x" }, { text: "looking" })]);
    const body = await completion(await chat(server.baseURL, user("go")));
    expect(body.choices[0]?.message.content).toBe("looking");
    expect(body.choices[0]?.message.tool_calls?.[0]?.function).toEqual({
      name: "read",
      arguments: '{"path":"x"}',
    });
    expect(body.choices[0]?.finish_reason).toBe("tool_calls");
    expect(body.usage.total_tokens).toBe(110);
  });

  it("consumes a queue in order, then answers with the fallback", async () => {
    server = await startOpenAiServer({ fallback: textReply("fallback") });
    server.script([textReply("one"), textReply("two")]);
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const body = await completion(await chat(server.baseURL, user(`q${i}`)));
      texts.push(body.choices[0]?.message.content ?? "");
    }
    expect(texts).toEqual(["one", "two", "fallback"]);
    expect(server.pending()).toBe(0);
    expect(server.chatRequests().map((r) => messageText(lastUserMessage(r)))).toEqual([
      "q0",
      "q1",
      "q2",
    ]);
    expect(server.chatRequests().map((r) => r.reply.text)).toEqual(["one", "two", "fallback"]);
  });

  it("lets a function script choose by request and counts scripted requests", async () => {
    server = await startOpenAiServer();
    server.script((request, index) =>
      textReply(`${index}:${messageText(lastUserMessage(request))}`),
    );
    const body = await completion(await chat(server.baseURL, user("ping")));
    expect(body.choices[0]?.message.content).toBe("0:ping");
    server.enqueue(textReply("queued"));
    const next = await completion(await chat(server.baseURL, user("again")));
    expect(next.choices[0]?.message.content).toBe("queued");
  });

  it("answers intercepted side requests without consuming the queue", async () => {
    server = await startOpenAiServer({
      intercept: (request) =>
        messageText(request.body.messages[0]).includes("title") ? textReply("A title") : undefined,
    });
    server.script([textReply("main")]);
    const side = await completion(
      await chat(server.baseURL, { messages: [{ role: "system", content: "make a title" }] }),
    );
    const main = await completion(await chat(server.baseURL, user("work")));
    expect(side.choices[0]?.message.content).toBe("A title");
    expect(main.choices[0]?.message.content).toBe("main");
    expect(server.chatRequests()).toHaveLength(2);
    expect(server.chatRequests({ scripted: true })).toHaveLength(1);
  });

  it("answers scripted HTTP errors in OpenAI's error shape", async () => {
    server = await startOpenAiServer();
    server.script([errorReply(400, "context too long", "context_length_exceeded")]);
    const response = await chat(server.baseURL, { ...user("x"), stream: true });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: "context too long",
        type: "invalid_request_error",
        code: "context_length_exceeded",
        param: null,
      },
    });
  });

  it("keeps a stalled stream open until the client aborts", async () => {
    server = await startOpenAiServer();
    server.script([{ text: "partial", stall: true }]);
    const controller = new AbortController();
    const response = await chat(server.baseURL, { ...user("x"), stream: true }, controller.signal);
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"role":"assistant"');
    const stalled = server.chatRequests()[0];
    expect(stalled?.abortedAt).toBeUndefined();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    // The server saw the client go: a test can wait on the drop instead of sleeping.
    await waitFor("the dropped connection", () => stalled?.abortedAt);
    expect(stalled?.finishedAt).toBeUndefined();
  });

  it("lists models, records every request and rejects malformed chat bodies", async () => {
    server = await startOpenAiServer({ models: ["a", "b"] });
    const models = (await (await fetch(`${server.baseURL}/models`)).json()) as {
      data: { id: string }[];
    };
    expect(models.data.map((m: { id: string }) => m.id)).toEqual(["a", "b"]);
    const bad = await fetch(`${server.baseURL}/chat/completions`, { method: "POST", body: "nope" });
    expect(bad.status).toBe(400);
    const missing = await fetch(`${server.url}/elsewhere`);
    expect(missing.status).toBe(404);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v1/models",
      "POST /v1/chat/completions",
      "GET /elsewhere",
    ]);
    expect(server.requests[1]?.body).toBe("nope");
    expect(server.chatRequests()).toHaveLength(0);
    server.clearRequests();
    expect(server.requests).toHaveLength(0);
  });

  it("waits for chat requests and rejects with what it saw on timeout", async () => {
    server = await startOpenAiServer();
    const waiting = server.waitForChatRequests(2);
    await chat(server.baseURL, user("first"));
    await chat(server.baseURL, user("second"));
    expect((await waiting).length).toBe(2);
    await expect(server.waitForChatRequests(3, { timeoutMs: 50 })).rejects.toThrow(
      /expected 3 chat requests, got 2: "first", "second"/,
    );
  });
});
