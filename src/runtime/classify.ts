import type { StopReason, TokenUsage } from "../core/types.js";
import { classifyError, type ErrorKind } from "./error-class.js";

export { classifyError, type ErrorKind, type ErrorVerdict } from "./error-class.js";

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

/** True for errors that mean the user (or the host on their behalf) stopped the turn. */
export function isInterrupt(error: unknown): boolean {
  return classifyError(error).kind === "abort";
}

/**
 * True for token-limit / context-overflow errors. These repeat on every retry,
 * so nudging after one is how an enforcer sends hundreds of nudges in minutes.
 */
export function isContextOverflow(error: unknown): boolean {
  return classifyError(error).kind === "context_overflow";
}

/**
 * True for a provider error a later attempt may not hit (network, rate limit,
 * overloaded). Anything that looks permanent (credentials, an invalid
 * request), or that nothing identifies, is not: continuing after it would
 * only repeat it.
 */
export function isTransientError(error: unknown): boolean {
  return classifyError(error).kind === "transient";
}

const ERROR_STOP_REASONS = {
  abort: "aborted",
  context_overflow: "context_overflow",
  transient: "transient_error",
  // An error nobody can identify is treated like one a retry will not fix: it parks.
  permanent: "error",
  unknown: "error",
} as const satisfies Record<ErrorKind, StopReason>;

/** A host error, as the StopReason of the turn it ended. */
export function classifyHostError(
  error: unknown,
): "aborted" | "context_overflow" | "transient_error" | "error" {
  return ERROR_STOP_REASONS[classifyError(error).kind];
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
