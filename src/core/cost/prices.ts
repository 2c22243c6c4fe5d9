import type { PriceTable } from "../types.js";

/**
 * When the prices below were copied from the providers' public price lists.
 * Prices change; a project overrides or adds models with `prices` in its
 * config file, and `why` names a model it cannot price.
 */
export const PRICES_AS_OF = "2025-11-01";

/**
 * List prices in USD per million tokens, standard tier (the first context
 * tier where a provider charges more for long prompts, no batch discount).
 * Where a provider does not charge cache writes separately (OpenAI, Google,
 * Qwen) `cacheWrite` is the input price: those tokens are billed as input.
 * Where a provider publishes no cache-read price the input price stands in:
 * a guess that errs high, never low.
 */
export const PRICES: Readonly<PriceTable> = Object.freeze({
  // Anthropic
  "claude-opus-4-5": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  "claude-opus-4-1": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "claude-opus-4": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "claude-sonnet-4-5": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-sonnet-4": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-3-7-sonnet": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-3-5-sonnet": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  "claude-3-haiku": { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 },
  // OpenAI
  "gpt-5": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  "gpt-5-codex": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  "gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0.05 },
  "gpt-4.1": { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0.4 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0.1 },
  "gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15 },
  o3: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
  "o4-mini": { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1 },
  // Google
  "gemini-2.5-pro": { input: 1.25, output: 10, cacheRead: 0.31, cacheWrite: 1.25 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0.3 },
  "gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0.1 },
  "gemini-2.0-flash": { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0.1 },
  // Qwen (Alibaba Cloud Model Studio, international)
  "qwen3-coder-plus": { input: 1, output: 5, cacheRead: 1, cacheWrite: 1 },
  "qwen3-coder-flash": { input: 0.3, output: 1.5, cacheRead: 0.3, cacheWrite: 0.3 },
  "qwen-max": { input: 1.6, output: 6.4, cacheRead: 1.6, cacheWrite: 1.6 },
  "qwen-plus": { input: 0.4, output: 1.2, cacheRead: 0.4, cacheWrite: 0.4 },
});
