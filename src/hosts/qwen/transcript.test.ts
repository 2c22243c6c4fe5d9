import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzeQwenTranscript, usageFromQwen } from "./transcript.js";

const reply = (uuid: string, at: string, usage: Record<string, number>) =>
  JSON.stringify({ uuid, type: "assistant", timestamp: at, usageMetadata: usage });

describe("Qwen Code transcript spend", () => {
  it("sums each reply's usageMetadata once, from `since` on, cached input apart", () => {
    const lines = [
      reply("a", "2026-01-01T00:00:00.000Z", { promptTokenCount: 500, candidatesTokenCount: 5 }),
      reply("b", "2026-01-01T00:01:00.000Z", {
        promptTokenCount: 100,
        candidatesTokenCount: 10,
        thoughtsTokenCount: 2,
        cachedContentTokenCount: 40,
        totalTokenCount: 112,
      }),
      reply("b", "2026-01-01T00:01:00.000Z", { promptTokenCount: 100, candidatesTokenCount: 10 }),
      '{"uuid":"c","type":"assistant","usageMetadata":{"promptTok', // torn by a write in progress
      JSON.stringify({
        uuid: "u",
        type: "user",
        timestamp: "2026-01-01T00:02:00.000Z",
        usageMetadata: { promptTokenCount: 9 },
      }),
    ];
    const facts = analyzeQwenTranscript(lines, Date.parse("2026-01-01T00:00:30.000Z"));
    expect(facts.usage).toEqual({
      input: 60,
      output: 12,
      cacheRead: 40,
      cacheWrite: 0,
      total: 112,
    });
    expect(facts).toMatchObject({
      interrupted: false,
      hostGoalActive: false,
      questionPending: false,
    });
  });

  it("never yields a negative or non-finite count, whatever the metadata", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.oneof(fc.double(), fc.integer(), fc.string())),
        (m) => {
          const u = usageFromQwen(m);
          for (const v of Object.values(u)) expect(Number.isFinite(v) && v >= 0).toBe(true);
          expect(u.input + u.cacheRead).toBe(
            typeof m.promptTokenCount === "number" &&
              m.promptTokenCount > 0 &&
              Number.isFinite(m.promptTokenCount)
              ? m.promptTokenCount
              : 0,
          );
        },
      ),
    );
    fc.assert(
      fc.property(fc.array(fc.string()), (lines) => {
        const { usage } = analyzeQwenTranscript(lines, 0);
        for (const v of Object.values(usage)) expect(Number.isFinite(v) && v >= 0).toBe(true);
      }),
    );
  });
});
