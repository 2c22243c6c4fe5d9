import { describe, expect, it } from "vitest";
import { decodeOutcomeId, encodeOutcomeId, latestTotals } from "./rollout.js";

const count = (input: number, cached: number, output: number) =>
  JSON.stringify({
    timestamp: "2026-11-26T05:22:04.000Z",
    type: "event_msg",
    payload: {
      type: "token_count",
      info: {
        total_token_usage: {
          input_tokens: input,
          cached_input_tokens: cached,
          cache_write_input_tokens: 0,
          output_tokens: output,
          reasoning_output_tokens: 0,
          total_tokens: input + output,
        },
      },
    },
  });

describe("rollout token totals", () => {
  it("reads the newest running total, cached input split out", () => {
    expect(latestTotals([count(100, 0, 10), "{broken", count(300, 120, 30), ""])).toEqual({
      input: 180,
      output: 30,
      cacheRead: 120,
      cacheWrite: 0,
      total: 330,
    });
    expect(latestTotals(['{"type":"event_msg","payload":{"type":"task_started"}}'])).toBeNull();
  });

  it("carries the totals and the Codex turn in the outcome id, fresh each time", () => {
    const totals = { input: 5, output: 6, cacheRead: 7, cacheWrite: 0, total: 18 };
    const a = encodeOutcomeId("01a2-turn", totals);
    expect(encodeOutcomeId("01a2-turn", totals)).not.toBe(a);
    expect(decodeOutcomeId(a)).toEqual({ totals, codexTurnId: "01a2-turn" });
    expect(decodeOutcomeId("t123")).toEqual({ totals: null, codexTurnId: null });
    expect(decodeOutcomeId(undefined)).toEqual({ totals: null, codexTurnId: null });
  });
});
