import type { ModelPrice, PriceTable, TokenUsage, TurnOutcome } from "../types.js";
import { PRICES } from "./prices.js";

/** A model's prices as a config file may write them: cache prices default to the input price. */
export interface PartialPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/**
 * The name a model is priced under: providers and routers decorate the same
 * model differently (`anthropic/claude-sonnet-4-5`, `claude-sonnet-4-5-20250929`,
 * `claude-sonnet-4-5@20250929`, `anthropic.claude-3-5-haiku-20241022-v1:0`,
 * `gpt-4o-2024-08-06`, `models/gemini-2.5-pro`). Only decorations are
 * stripped; a name is never matched to a different model by prefix.
 */
export function canonicalModel(name: string): string {
  let model = name.trim().toLowerCase();
  model = model.slice(model.lastIndexOf("/") + 1);
  model = model.replace(/^(anthropic|openai|google|vertex_ai|bedrock)\./, "");
  model = model.replace(/[@:].*$/, "");
  model = model.replace(/-v\d+$/, "");
  model = model.replace(/-(latest|\d{8}|\d{4}-\d{2}-\d{2})$/, "");
  return model;
}

/**
 * The package's table with a project's overrides on top. Override keys are
 * canonicalized too, so `"anthropic/claude-sonnet-4-5"` in a config file
 * replaces the built-in row for that model.
 */
export function priceTable(overrides: Record<string, PartialPrice> = {}): PriceTable {
  const table: PriceTable = {};
  for (const [model, price] of Object.entries(PRICES)) table[model] = price;
  for (const [model, price] of Object.entries(overrides)) {
    table[canonicalModel(model)] = {
      input: price.input,
      output: price.output,
      cacheRead: price.cacheRead ?? price.input,
      cacheWrite: price.cacheWrite ?? price.input,
    };
  }
  return table;
}

/** The prices of a model, or null when the table does not know it. */
export function findPrice(table: PriceTable, model: string | undefined): ModelPrice | null {
  if (model === undefined || model.trim() === "") return null;
  const exact = Object.hasOwn(table, model) ? table[model] : undefined;
  if (exact !== undefined) return exact;
  const key = canonicalModel(model);
  return Object.hasOwn(table, key) ? (table[key] ?? null) : null;
}

function tokens(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * What one turn cost in USD, or null when it used tokens and its model has
 * no price: unknown, never free. A turn that used no tokens costs nothing
 * whatever its model. `usage.input` is uncached input (see `TokenUsage`).
 */
export function priceTurn(
  usage: Partial<TokenUsage> | null | undefined,
  model: string | undefined,
  table: PriceTable,
): number | null {
  const u = usage ?? {};
  const input = tokens(u.input);
  const output = tokens(u.output);
  const cacheRead = tokens(u.cacheRead);
  const cacheWrite = tokens(u.cacheWrite);
  if (input + output + cacheRead + cacheWrite === 0) return 0;
  const price = findPrice(table, model);
  if (price === null) return null;
  return (
    (input * price.input +
      output * price.output +
      cacheRead * price.cacheRead +
      cacheWrite * price.cacheWrite) /
    1_000_000
  );
}

/**
 * The cost of an outcome as the engine counts it: the runtime's price when
 * set, null when the runtime could not price it, and for an outcome nobody
 * priced (a caller of the pure engine), 0 without tokens and unknown with.
 */
export function outcomeCost(outcome: TurnOutcome): number | null {
  const cost = outcome.costUsd;
  if (typeof cost === "number") return Number.isFinite(cost) && cost >= 0 ? cost : null;
  if (cost === null) return null;
  return priceTurn(outcome.usage, undefined, {}) === 0 ? 0 : null;
}
