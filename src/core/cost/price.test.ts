import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalModel, findPrice, outcomeCost, priceTable, priceTurn } from "./price.js";
import { PRICES, PRICES_AS_OF } from "./prices.js";

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  total: input + output + cacheRead + cacheWrite,
});

describe("the price table", () => {
  it("is date-stamped and covers Anthropic, OpenAI, Google and Qwen models", () => {
    expect(PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const model of ["claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro", "qwen3-coder-plus"]) {
      expect(PRICES[model]).toBeDefined();
    }
    for (const price of Object.values(PRICES)) {
      for (const v of Object.values(price)) expect(v >= 0 && Number.isFinite(v)).toBe(true);
      expect(price.output).toBeGreaterThanOrEqual(price.input);
    }
  });

  it("names models by their canonical form only", () => {
    for (const key of Object.keys(PRICES)) expect(canonicalModel(key)).toBe(key);
  });
});

describe("canonicalModel", () => {
  it.each([
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
    ["anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"],
    ["claude-sonnet-4-5@20250929", "claude-sonnet-4-5"],
    ["anthropic.claude-3-5-haiku-20241022-v1:0", "claude-3-5-haiku"],
    ["gpt-4o-2024-08-06", "gpt-4o"],
    ["models/gemini-2.5-pro", "gemini-2.5-pro"],
    ["Claude-Opus-4-1", "claude-opus-4-1"],
    ["claude-3-7-sonnet-latest", "claude-3-7-sonnet"],
  ])("%s -> %s", (raw, canonical) => {
    expect(canonicalModel(raw)).toBe(canonical);
  });

  it("never matches a different model by prefix", () => {
    expect(findPrice(priceTable(), "gpt-5-turbo-nonexistent")).toBeNull();
    expect(findPrice(priceTable(), "claude-sonnet-9")).toBeNull();
  });
});

describe("priceTurn", () => {
  it("prices each kind of token at its own rate", () => {
    // claude-sonnet-4-5: 3 in, 15 out, 0.3 cache read, 3.75 cache write per million.
    const cost = priceTurn(
      usage(1_000_000, 100_000, 2_000_000, 10_000),
      "claude-sonnet-4-5-20250929",
      priceTable(),
    );
    expect(cost).toBeCloseTo(3 + 1.5 + 0.6 + 0.0375, 10);
  });

  it("counts an unknown model as unknown, never as free", () => {
    expect(priceTurn(usage(10, 10), "my-local-model", priceTable())).toBeNull();
    expect(priceTurn(usage(10, 10), undefined, priceTable())).toBeNull();
  });

  it("a turn that used no tokens costs nothing, whatever its model", () => {
    expect(priceTurn(usage(0, 0), "my-local-model", priceTable())).toBe(0);
    expect(priceTurn(undefined, undefined, priceTable())).toBe(0);
  });

  it("takes a project's prices over the table, cache prices defaulting to input", () => {
    const table = priceTable({
      "my-local-model": { input: 2, output: 4 },
      "anthropic/claude-sonnet-4-5": { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
    });
    expect(priceTurn(usage(1_000_000, 0, 1_000_000, 1_000_000), "my-local-model", table)).toBe(6);
    expect(priceTurn(usage(1_000_000, 1_000_000), "claude-sonnet-4-5", table)).toBe(2);
    // The shipped table itself is never changed.
    expect(PRICES["claude-sonnet-4-5"]?.input).toBe(3);
  });

  it("is never negative or NaN, and grows with every kind of token", () => {
    const table = priceTable();
    const n = fc.oneof(
      fc.nat(10_000_000),
      fc.constantFrom(-1, Number.NaN, Number.POSITIVE_INFINITY),
    );
    fc.assert(
      fc.property(n, n, n, n, fc.constantFrom(...Object.keys(PRICES)), (i, o, r, w, model) => {
        const cost = priceTurn({ input: i, output: o, cacheRead: r, cacheWrite: w }, model, table);
        expect(cost).not.toBeNull();
        expect(Number.isFinite(cost) && (cost as number) >= 0).toBe(true);
        const more = priceTurn(
          { input: Math.max(0, i) + 1000, output: o, cacheRead: r, cacheWrite: w },
          model,
          table,
        );
        expect(more as number).toBeGreaterThanOrEqual(cost as number);
      }),
    );
  });
});

describe("outcomeCost", () => {
  const base = {
    turnId: "t",
    stopReason: "stop" as const,
    endedAt: 0,
    injected: false,
    restartCaused: false,
  };
  it("uses the runtime's price, null when it could not price", () => {
    expect(outcomeCost({ ...base, usage: usage(5, 5), costUsd: 0.25 })).toBe(0.25);
    expect(outcomeCost({ ...base, usage: usage(5, 5), costUsd: null })).toBeNull();
  });
  it("prices nothing it was not told: tokens without a price are unknown", () => {
    expect(outcomeCost({ ...base, usage: usage(5, 5) })).toBeNull();
    expect(outcomeCost({ ...base, usage: usage(0, 0) })).toBe(0);
  });
});
