import type { StopReason, TokenUsage } from "../core/types.js";

/**
 * Classifiers turn each host's notion of "how the turn ended" into one
 * StopReason. Anything unrecognized is `unknown`, which the engine treats as
 * not safe: an idle after a turn we cannot read never injects.
 */

function lookup(table: Record<string, StopReason>, reason: unknown): StopReason {
  return typeof reason === "string" && Object.hasOwn(table, reason)
    ? (table[reason] as StopReason)
    : "unknown";
}

const PI: Record<string, StopReason> = {
  stop: "stop",
  length: "length",
  toolUse: "tool_use",
  error: "error",
  aborted: "aborted",
};

/** pi's AssistantMessage.stopReason: `stop | length | toolUse | error | aborted`. */
export function classifyPiStopReason(reason: unknown): StopReason {
  return lookup(PI, reason);
}

const AI_SDK: Record<string, StopReason> = {
  stop: "stop",
  length: "length",
  "tool-calls": "tool_use",
  error: "error",
  // A filtered answer is not the model finishing its work: not safe to nudge.
  "content-filter": "error",
};

/** The AI SDK's finishReason (`other` and `unknown` stay unknown). */
export function classifyAiSdkFinishReason(reason: unknown): StopReason {
  return lookup(AI_SDK, reason);
}

const ANTHROPIC: Record<string, StopReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_use",
  pause_turn: "tool_use",
  refusal: "error",
  model_context_window_exceeded: "context_overflow",
};

/** Anthropic Messages API `stop_reason`. */
export function classifyAnthropicStopReason(reason: unknown): StopReason {
  return lookup(ANTHROPIC, reason);
}

const OPENAI: Record<string, StopReason> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "error",
};

/** OpenAI-compatible `finish_reason` (and OpenCode's assistant `finish`, which mirrors it). */
export function classifyOpenAiFinishReason(reason: unknown): StopReason {
  if (reason === "tool-calls") return "tool_use";
  return lookup(OPENAI, reason);
}

function errorParts(error: unknown): { name: string; message: string } {
  if (typeof error === "string") return { name: "", message: error.toLowerCase() };
  if (typeof error !== "object" || error === null) return { name: "", message: "" };
  const record = error as Record<string, unknown>;
  const name = typeof record.name === "string" ? record.name : "";
  let message = typeof record.message === "string" ? record.message : "";
  // OpenCode nests the details: { name, data: { message, ... } }.
  const data = record.data;
  if (typeof data === "object" && data !== null) {
    const inner = (data as Record<string, unknown>).message;
    if (typeof inner === "string") message = `${message} ${inner}`;
  }
  return { name, message: message.toLowerCase() };
}

const ABORT_NAMES = new Set(["MessageAbortedError", "AbortError"]);

/** True for errors that mean the user (or the host on their behalf) stopped the turn. */
export function isInterrupt(error: unknown): boolean {
  const { name, message } = errorParts(error);
  if (ABORT_NAMES.has(name)) return true;
  if (name === "DOMException" && message.includes("abort")) return true;
  return /\b(abort(ed)?|cancel(l)?ed|interrupted)\b/.test(message);
}

const OVERFLOW_PATTERNS = [
  /context[ _-]?(length|window|overflow)/,
  /maximum context/,
  /too many tokens/,
  /token limit/,
  /prompt is too long/,
  /input is too long/,
  /exceeds? the (model'?s? )?(maximum|max)/,
  /max_tokens/,
];

const OVERFLOW_NAMES = new Set(["ContextOverflowError", "MessageOutputLengthError"]);

/**
 * True for token-limit / context-overflow errors. These repeat on every retry,
 * so nudging after one is how an enforcer sends hundreds of nudges in minutes.
 */
export function isContextOverflow(error: unknown): boolean {
  const { name, message } = errorParts(error);
  if (OVERFLOW_NAMES.has(name)) return true;
  return OVERFLOW_PATTERNS.some((p) => p.test(message));
}

/** Errors a retry cannot fix: credentials, permissions, a request the provider refuses. */
const PERMANENT_PATTERNS = [
  /\b(401|403|400|404|422)\b/,
  /unauthori[sz]ed/,
  /authenticat/,
  /api[ _-]?key/,
  /permission/,
  /forbidden/,
  /invalid[ _-]request/,
  /billing|quota|credit balance/,
];

const PERMANENT_NAMES = new Set(["ProviderAuthError", "AuthenticationError"]);

/** Errors that come and go: the network, a rate limit, an overloaded or failing server. */
const TRANSIENT_PATTERNS = [
  /\b(408|409|425|429|500|502|503|504|529)\b/,
  /rate[ _-]?limit/,
  /too many requests/,
  /overloaded/,
  /temporar(il)?y unavailable|service unavailable|bad gateway|gateway timeout|internal server error/,
  /econnreset|econnrefused|etimedout|enotfound|eai_again|epipe|socket hang up/,
  /network|fetch failed|connection (error|reset|refused|closed)/,
  /timed? ?out/,
];

const TRANSIENT_NAMES = new Set([
  "APIConnectionError",
  "APIConnectionTimeoutError",
  "TimeoutError",
]);

/** OpenCode's APIError says itself whether a retry may help: `data.isRetryable`, `data.statusCode`. */
function declaredRetryable(error: unknown): boolean | null {
  if (typeof error !== "object" || error === null) return null;
  const data = (error as Record<string, unknown>).data;
  if (typeof data !== "object" || data === null) return null;
  const { isRetryable, statusCode } = data as Record<string, unknown>;
  if (typeof isRetryable === "boolean") return isRetryable;
  if (typeof statusCode === "number") {
    return statusCode === 408 || statusCode === 429 || statusCode >= 500;
  }
  return null;
}

/**
 * True for a provider error a later attempt may not hit (network, rate limit,
 * overloaded). Anything that looks permanent (credentials, an invalid
 * request), or that nothing identifies, is not: continuing after it would
 * only repeat it.
 */
export function isTransientError(error: unknown): boolean {
  const { name, message } = errorParts(error);
  if (PERMANENT_NAMES.has(name)) return false;
  const declared = declaredRetryable(error);
  if (declared !== null) return declared;
  if (PERMANENT_PATTERNS.some((p) => p.test(message))) return false;
  if (TRANSIENT_NAMES.has(name)) return true;
  return TRANSIENT_PATTERNS.some((p) => p.test(message));
}

/** A host error, as the StopReason of the turn it ended. */
export function classifyHostError(
  error: unknown,
): "aborted" | "context_overflow" | "transient_error" | "error" {
  if (isInterrupt(error)) return "aborted";
  if (isContextOverflow(error)) return "context_overflow";
  if (isTransientError(error)) return "transient_error";
  return "error";
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0
    ? Math.min(Math.floor(value), Number.MAX_SAFE_INTEGER)
    : 0;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/** pi usage: `input` already excludes cached tokens; `totalTokens` includes them. */
export function usageFromPi(usage: unknown): TokenUsage {
  const u = record(usage);
  const input = num(u.input);
  const output = num(u.output);
  const cacheRead = num(u.cacheRead);
  const cacheWrite = num(u.cacheWrite);
  const total = num(u.totalTokens) || input + output + cacheRead + cacheWrite;
  return { input, output, cacheRead, cacheWrite, total };
}

/**
 * AI SDK usage. `inputTokens` includes cached input; v5+ reports the cached
 * part as `cachedInputTokens` (or `inputTokenDetails.cacheReadTokens`), which we
 * subtract so `input` means uncached input everywhere.
 */
export function usageFromAiSdk(usage: unknown): TokenUsage {
  const u = record(usage);
  const details = record(u.inputTokenDetails);
  const rawInput = num(u.inputTokens ?? u.promptTokens);
  const cacheRead = num(u.cachedInputTokens) || num(details.cacheReadTokens);
  const cacheWrite = num(details.cacheWriteTokens);
  const output = num(u.outputTokens ?? u.completionTokens);
  const input = Math.max(0, rawInput - cacheRead - cacheWrite);
  const total = num(u.totalTokens) || rawInput + output;
  return { input, output, cacheRead, cacheWrite, total };
}

/** Anthropic usage: `input_tokens` excludes cache reads and writes, which come separately. */
export function usageFromAnthropic(usage: unknown): TokenUsage {
  const u = record(usage);
  const input = num(u.input_tokens);
  const output = num(u.output_tokens);
  const cacheRead = num(u.cache_read_input_tokens);
  const cacheWrite = num(u.cache_creation_input_tokens);
  return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}

/** OpenCode assistant message tokens: `{ input, output, reasoning, cache: { read, write } }`. */
export function usageFromOpenCode(tokens: unknown): TokenUsage {
  const t = record(tokens);
  const cache = record(t.cache);
  const input = num(t.input);
  const output = num(t.output) + num(t.reasoning);
  const cacheRead = num(cache.read);
  const cacheWrite = num(cache.write);
  return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}

/** Fills a partial usage from a host that reported only some fields. */
export function completeUsage(partial: Partial<TokenUsage> | undefined): TokenUsage {
  const input = num(partial?.input);
  const output = num(partial?.output);
  const cacheRead = num(partial?.cacheRead);
  const cacheWrite = num(partial?.cacheWrite);
  const total = num(partial?.total) || input + output + cacheRead + cacheWrite;
  return { input, output, cacheRead, cacheWrite, total };
}
