import type { StopReason } from "../../core/types.js";
import { classifyError } from "../../runtime/index.js";
import type { PiAssistantMessage } from "./pi-api.js";

/**
 * pi retries a failed model call itself (`retry.enabled`, default on,
 * `retry.maxRetries`, default 3, backoff from `retry.baseDelayMs`), deciding
 * after `agent_end` from the words of `errorMessage`, and recovers from a
 * context overflow by compacting and calling again. Read from pi 0.73.1
 * (`AgentSession._isRetryableError`) and 1.3.0 (`isRetryableAssistantError`,
 * which also refuses quota and billing limits).
 *
 * These are the words either version retries on. A `true` only means "wait
 * for pi": a wrong one delays the park to the end of the run, never nudges.
 */
const PI_RETRY_WORDS =
  /overloaded|server.?busy|currently busy|high demand|at capacity|rate.?limit|too many requests|\b(429|5\d\d)\b|unavailable|server.?error|internal.?error|provider.?returned|upstream|network.?error|connection.?(error|refused|lost|reset)|other side closed|fetch failed|getaddrinfo|enotfound|eai_again|reset before headers|socket hang up|socket connection was closed|timed? ?out|timeout|terminated|websocket.?(closed|error)|ended without|stream ended|http2|has been canceled|retry delay|retry your request|request again|resource.?exhausted/i;

/** How a pi assistant message ended; an error is read from its `errorMessage`. */
export function piStopReason(message: PiAssistantMessage): StopReason {
  const reason = message.stopReason;
  if (reason !== "error") {
    switch (reason) {
      case "stop":
        return "stop";
      case "length":
        return "length";
      case "toolUse":
        return "tool_use";
      case "aborted":
        return "aborted";
      default:
        return "unknown";
    }
  }
  const kind = classifyError({ errorMessage: message.errorMessage }).kind;
  if (kind === "context_overflow") return "context_overflow";
  if (kind === "transient") return "transient_error";
  // An error event is never the user's Esc (pi reports that as `aborted`): it parks.
  return "error";
}

/** True when pi may still retry this failed call or recover from it by compacting. */
export function piMayRecover(message: PiAssistantMessage): boolean {
  if (message.stopReason !== "error") return false;
  const text = typeof message.errorMessage === "string" ? message.errorMessage : "";
  if (text === "") return false;
  if (PI_RETRY_WORDS.test(text)) return true;
  const kind = classifyError({ errorMessage: text }).kind;
  return kind === "transient" || kind === "context_overflow";
}
