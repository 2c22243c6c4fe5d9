import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyError, type ErrorKind } from "./error-class.js";

type Row = [string, unknown, ErrorKind];

function check(rows: Row[]) {
  for (const [label, error, kind] of rows) {
    const verdict = classifyError(error);
    expect({ label, kind: verdict.kind }).toEqual({ label, kind });
    expect(verdict.why.length).toBeGreaterThan(0);
  }
}

describe("OpenCode 1.18 session.error / assistant message error", () => {
  it("reads APIError's statusCode, isRetryable, responseBody and headers", () => {
    check([
      [
        "503 retryable",
        {
          name: "APIError",
          data: { message: "Service Unavailable", statusCode: 503, isRetryable: true },
        },
        "transient",
      ],
      [
        "429 with retry-after",
        {
          name: "APIError",
          data: {
            message: "Too Many Requests",
            statusCode: 429,
            isRetryable: true,
            responseHeaders: { "retry-after": "3" },
          },
        },
        "transient",
      ],
      [
        "stream overload nested in responseBody, not marked retryable",
        {
          name: "APIError",
          data: {
            message: "Server error.",
            isRetryable: false,
            responseBody: JSON.stringify({
              type: "error",
              error: { code: "server_is_overloaded", message: "Our servers are busy" },
            }),
          },
        },
        "transient",
      ],
      [
        "insufficient quota arrives as a 429",
        {
          name: "APIError",
          data: {
            message: "Quota exceeded. Check your plan and billing details.",
            statusCode: 429,
            isRetryable: false,
            responseBody: '{"error":{"code":"insufficient_quota","type":"insufficient_quota"}}',
          },
        },
        "permanent",
      ],
      [
        "401",
        {
          name: "APIError",
          data: { message: "Unauthorized", statusCode: 401, isRetryable: false },
        },
        "permanent",
      ],
      [
        "only isRetryable",
        { name: "APIError", data: { message: "x", isRetryable: true } },
        "transient",
      ],
      [
        "ProviderAuthError",
        { name: "ProviderAuthError", data: { providerID: "openai", message: "timeout" } },
        "permanent",
      ],
      [
        "ContextOverflowError",
        {
          name: "ContextOverflowError",
          data: { message: "Input exceeds context window of this model" },
        },
        "context_overflow",
      ],
      [
        "MessageOutputLengthError",
        { name: "MessageOutputLengthError", data: {} },
        "context_overflow",
      ],
      [
        "MessageAbortedError",
        { name: "MessageAbortedError", data: { message: "Aborted" } },
        "abort",
      ],
      [
        "ContentFilterError",
        { name: "ContentFilterError", data: { message: "filtered" } },
        "permanent",
      ],
      [
        "UnknownError with a network message",
        { name: "UnknownError", data: { message: "Connection failed" } },
        "transient",
      ],
      [
        "UnknownError with nothing in it",
        { name: "UnknownError", data: { message: "something odd" } },
        "unknown",
      ],
      [
        "context_length_exceeded in the body of a retryable error",
        {
          name: "APIError",
          data: {
            message: "Bad Request",
            isRetryable: true,
            responseBody: '{"type":"error","error":{"code":"context_length_exceeded"}}',
          },
        },
        "context_overflow",
      ],
    ]);
  });
});

describe("pi 0.73 / 1.x AssistantMessage.errorMessage", () => {
  it("reads the status and words pi's providers write", () => {
    check([
      ["429 no body", { errorMessage: "429 status code (no body)" }, "transient"],
      ["500", { errorMessage: "500 Internal server error" }, "transient"],
      ["connection", { errorMessage: "Connection error." }, "transient"],
      [
        "anthropic overloaded",
        {
          errorMessage:
            '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        },
        "transient",
      ],
      [
        "anthropic auth",
        {
          errorMessage:
            '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
        },
        "permanent",
      ],
      ["no key", { errorMessage: "No API key found for provider openai" }, "permanent"],
      ["aborted", { errorMessage: "Request was aborted" }, "abort"],
      [
        "timeout abort is not the user",
        { errorMessage: "The operation was aborted due to timeout" },
        "transient",
      ],
      [
        "overflow",
        { errorMessage: "400 This model's maximum context length is 128000 tokens" },
        "context_overflow",
      ],
      ["terminated", { errorMessage: "terminated" }, "transient"],
      [
        "pi 1.3.0's final text: a generic type around a specific code, settled by the status",
        {
          errorMessage:
            '503: {"message":"The server is overloaded","type":"invalid_request_error","code":"server_is_overloaded","param":null}',
        },
        "transient",
      ],
      [
        "the same disagreement without a status stays permanent",
        { error: { type: "invalid_request_error", code: "server_is_overloaded" } },
        "permanent",
      ],
    ]);
  });
});

describe("Claude Code StopFailure (error, error_details)", () => {
  it("reads the error type it sends", () => {
    check([
      ["rate_limit", { type: "rate_limit", message: "" }, "transient"],
      ["server_error", { type: "server_error", message: "API Error: 500" }, "transient"],
      ["authentication_failed", { type: "authentication_failed" }, "permanent"],
      ["billing_error", { type: "billing_error" }, "permanent"],
      ["invalid_request", { type: "invalid_request" }, "permanent"],
      ["max_output_tokens", { type: "max_output_tokens" }, "context_overflow"],
      [
        "unknown with an overloaded message",
        { type: "unknown", message: "API Error: Repeated 529 Overloaded errors" },
        "transient",
      ],
      ["unknown", { type: "unknown" }, "unknown"],
    ]);
  });
});

describe("AI SDK errors", () => {
  it("reads APICallError, RetryError and fetch causes", () => {
    const apiCall = (statusCode: number, isRetryable: boolean, responseBody = "") =>
      Object.assign(new Error(`status ${statusCode}`), {
        name: "AI_APICallError",
        statusCode,
        isRetryable,
        responseBody,
        data: undefined,
      });
    check([
      ["429", apiCall(429, true), "transient"],
      ["400", apiCall(400, false), "permanent"],
      [
        "RetryError wrapping 503s",
        Object.assign(new Error("Failed after 3 attempts. Last error: Service Unavailable"), {
          name: "AI_RetryError",
          reason: "maxRetriesExceeded",
          errors: [apiCall(503, true), apiCall(503, true)],
          lastError: apiCall(503, true),
        }),
        "transient",
      ],
      [
        "fetch failed with a cause code",
        Object.assign(new TypeError("fetch failed"), {
          cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), {
            code: "ECONNREFUSED",
          }),
        }),
        "transient",
      ],
      ["NetworkError", { name: "NetworkError", message: "Connection failed" }, "transient"],
      [
        "DOMException AbortError",
        Object.assign(new Error("This operation was aborted"), { name: "AbortError" }),
        "abort",
      ],
      [
        "TimeoutError",
        Object.assign(new Error("The operation was aborted due to timeout"), {
          name: "TimeoutError",
        }),
        "transient",
      ],
      [
        "Gemini RESOURCE_EXHAUSTED",
        { error: { code: 429, status: "RESOURCE_EXHAUSTED", message: "Resource exhausted" } },
        "transient",
      ],
      ["413", apiCall(413, false), "context_overflow"],
    ]);
  });
});

describe("odd input", () => {
  it("says unknown, with a reason, for nothing readable", () => {
    for (const value of [null, undefined, 0, "", {}, [], Symbol("x")]) {
      const verdict = classifyError(value);
      expect(verdict.kind).toBe("unknown");
      expect(verdict.why.length).toBeGreaterThan(0);
    }
  });

  it("survives cycles, throwing getters and proxies", () => {
    const cyclic: Record<string, unknown> = { name: "APIError" };
    cyclic.cause = cyclic;
    cyclic.data = { error: cyclic, message: "overloaded" };
    expect(classifyError(cyclic).kind).toBe("transient");
    const throwing = Object.defineProperty({}, "message", {
      get() {
        throw new Error("no");
      },
      enumerable: true,
    });
    expect(classifyError(throwing).kind).toBe("unknown");
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error("no");
        },
        ownKeys() {
          throw new Error("no");
        },
      },
    );
    expect(classifyError(proxy).kind).toBe("unknown");
  });

  it("stops at its depth bound", () => {
    let deep: Record<string, unknown> = { code: "server_is_overloaded" };
    for (let i = 0; i < 50; i++) deep = { error: deep };
    expect(classifyError(deep).kind).toBe("unknown");
  });

  it("never throws, is deterministic, and always names a kind and a reason", () => {
    const kinds = ["transient", "permanent", "context_overflow", "abort", "unknown"];
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true }), (value) => {
        const first = classifyError(value);
        const second = classifyError(value);
        expect(second).toEqual(first);
        expect(kinds).toContain(first.kind);
        expect(first.why.length).toBeGreaterThan(0);
        expect(first.why.length).toBeLessThan(400);
      }),
      { numRuns: 500 },
    );
  });

  it("reads JSON inside a message only up to its size bound", () => {
    const body = (pad: number) => `{"status":503,"pad":"${"x".repeat(pad)}"}`;
    expect(classifyError({ message: body(10) }).kind).toBe("transient");
    expect(classifyError({ message: body(40_000) }).kind).toBe("unknown");
  });
});
