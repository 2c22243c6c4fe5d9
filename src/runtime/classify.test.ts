import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  classifyAiSdkFinishReason,
  classifyAnthropicStopReason,
  classifyHostError,
  classifyOpenAiFinishReason,
  classifyPiStopReason,
  completeUsage,
  isContextOverflow,
  isInterrupt,
  usageFromAiSdk,
  usageFromAnthropic,
  usageFromOpenCode,
  usageFromPi,
} from "./classify.js";

describe("stop reason classifiers", () => {
  it("map each host's known reasons", () => {
    expect(["stop", "length", "toolUse", "error", "aborted"].map(classifyPiStopReason)).toEqual([
      "stop",
      "length",
      "tool_use",
      "error",
      "aborted",
    ]);
    expect(
      ["stop", "length", "tool-calls", "error", "content-filter", "other"].map(
        classifyAiSdkFinishReason,
      ),
    ).toEqual(["stop", "length", "tool_use", "error", "error", "unknown"]);
    expect(
      ["end_turn", "max_tokens", "tool_use", "model_context_window_exceeded", "refusal"].map(
        classifyAnthropicStopReason,
      ),
    ).toEqual(["stop", "length", "tool_use", "context_overflow", "error"]);
    expect(["stop", "tool_calls", "tool-calls", "length"].map(classifyOpenAiFinishReason)).toEqual([
      "stop",
      "tool_use",
      "tool_use",
      "length",
    ]);
  });

  it("fail closed: anything unrecognized is unknown", () => {
    const known = new Set([
      "stop",
      "length",
      "toolUse",
      "error",
      "aborted",
      "tool-calls",
      "content-filter",
      "end_turn",
      "stop_sequence",
      "max_tokens",
      "tool_use",
      "pause_turn",
      "refusal",
      "model_context_window_exceeded",
      "tool_calls",
      "function_call",
      "content_filter",
    ]);
    fc.assert(
      fc.property(fc.anything(), (value) => {
        fc.pre(!(typeof value === "string" && known.has(value)));
        for (const classify of [
          classifyPiStopReason,
          classifyAiSdkFinishReason,
          classifyAnthropicStopReason,
          classifyOpenAiFinishReason,
        ]) {
          expect(classify(value)).toBe("unknown");
        }
      }),
    );
  });

  it("never maps prototype keys", () => {
    expect(classifyPiStopReason("constructor")).toBe("unknown");
    expect(classifyAnthropicStopReason("__proto__")).toBe("unknown");
  });
});

describe("host errors", () => {
  it("detects interrupts by name and message", () => {
    expect(isInterrupt({ name: "MessageAbortedError", data: { message: "x" } })).toBe(true);
    expect(isInterrupt({ name: "AbortError" })).toBe(true);
    expect(isInterrupt({ name: "DOMException", message: "The operation was aborted" })).toBe(true);
    expect(isInterrupt("Request cancelled by user")).toBe(true);
    expect(isInterrupt({ name: "APIError", message: "overloaded" })).toBe(false);
    expect(isInterrupt(null)).toBe(false);
  });

  it("detects token limits and context overflow", () => {
    expect(
      isContextOverflow({
        name: "APIError",
        data: { message: "prompt is too long: 210000 tokens" },
      }),
    ).toBe(true);
    expect(
      isContextOverflow(new Error("This model's maximum context length is 128000 tokens")),
    ).toBe(true);
    expect(isContextOverflow({ name: "ContextOverflowError" })).toBe(true);
    expect(isContextOverflow(new Error("rate limited"))).toBe(false);
  });

  it("classifies an error as the stop reason of its turn", () => {
    expect(classifyHostError({ name: "MessageAbortedError" })).toBe("aborted");
    expect(classifyHostError(new Error("context window exceeded"))).toBe("context_overflow");
    expect(classifyHostError({ name: "APIError", data: { message: "502" } })).toBe(
      "transient_error",
    );
    expect(classifyHostError({ name: "APIError", data: { message: "boom" } })).toBe("error");
  });

  it("tells transient provider errors from permanent ones", () => {
    const transient = [
      { name: "APIError", data: { message: "Too Many Requests", statusCode: 429 } },
      { name: "APIError", data: { message: "whatever", isRetryable: true } },
      new Error("API Error: 529 overloaded_error"),
      new Error("fetch failed: ECONNRESET"),
      "Rate limit reached for requests",
      { name: "APIConnectionError", message: "" },
    ];
    for (const error of transient) expect(classifyHostError(error)).toBe("transient_error");
    const permanent = [
      { name: "APIError", data: { message: "Service Unavailable", isRetryable: false } },
      { name: "APIError", data: { message: "bad key", statusCode: 401 } },
      { name: "ProviderAuthError", data: { message: "timeout while refreshing" } },
      new Error("API Error: 401 invalid x-api-key"),
      new Error("API Error: 400 invalid_request_error: messages: field required"),
      new Error("something odd happened"),
    ];
    for (const error of permanent) expect(classifyHostError(error)).toBe("error");
  });
});

describe("usage extraction", () => {
  it("pi: input excludes cache; total includes it", () => {
    expect(
      usageFromPi({ input: 10, output: 5, cacheRead: 1000, cacheWrite: 0, totalTokens: 1015 }),
    ).toEqual({
      input: 10,
      output: 5,
      cacheRead: 1000,
      cacheWrite: 0,
      total: 1015,
    });
  });

  it("AI SDK: cached input is taken out of input", () => {
    expect(
      usageFromAiSdk({
        inputTokens: 1200,
        outputTokens: 30,
        totalTokens: 1230,
        cachedInputTokens: 1000,
      }),
    ).toEqual({ input: 200, output: 30, cacheRead: 1000, cacheWrite: 0, total: 1230 });
  });

  it("Anthropic and OpenCode", () => {
    expect(
      usageFromAnthropic({
        input_tokens: 3,
        output_tokens: 7,
        cache_read_input_tokens: 500,
        cache_creation_input_tokens: 20,
      }),
    ).toEqual({ input: 3, output: 7, cacheRead: 500, cacheWrite: 20, total: 530 });
    expect(
      usageFromOpenCode({ input: 4, output: 6, reasoning: 2, cache: { read: 100, write: 1 } }),
    ).toEqual({
      input: 4,
      output: 8,
      cacheRead: 100,
      cacheWrite: 1,
      total: 113,
    });
  });

  it("garbage usage is zero, never NaN", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        for (const extract of [
          usageFromPi,
          usageFromAiSdk,
          usageFromAnthropic,
          usageFromOpenCode,
        ]) {
          const usage = extract(value);
          for (const n of Object.values(usage))
            expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
        }
        const partial = completeUsage(value as never);
        for (const n of Object.values(partial))
          expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
      }),
    );
  });
});
