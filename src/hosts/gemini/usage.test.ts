import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { readSessionSpend, sessionMessages, spendOf } from "./usage.js";

const dir = mkdtempSync(join(tmpdir(), "gem-usage-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (ms: number) => new Date(ms).toISOString();
const reply = (id: string, ms: number, tokens?: Record<string, number>) => ({
  id,
  timestamp: at(ms),
  type: "gemini",
  content: "text",
  ...(tokens ? { tokens } : {}),
});

describe("Gemini CLI session files", () => {
  it("reads JSON Lines, the last copy of a message winning, and charges replies since a time", () => {
    const lines = [
      { sessionId: "s", projectHash: "h", startTime: at(0) },
      { id: "u1", timestamp: at(1_000), type: "user", content: "Build it." },
      reply("g1", 2_000, { input: 900, output: 40, cached: 0, thoughts: 0, tool: 0, total: 940 }),
      // The reply as first written, then again with its tokens: the second copy counts.
      reply("g2", 5_000),
      { $set: { lastUpdated: at(5_500) } },
      reply("g2", 5_000, {
        input: 1_000,
        output: 50,
        cached: 400,
        thoughts: 10,
        tool: 5,
        total: 1_065,
      }),
    ]
      .map((l) => JSON.stringify(l))
      .join("\n");
    const messages = sessionMessages(`${lines}\n{"id":"g3","type":"gem`);
    expect(messages.map((m) => m.id)).toEqual(["u1", "g1", "g2"]);
    expect(spendOf(messages, 3_000)).toEqual({
      input: 605,
      output: 60,
      cacheRead: 400,
      cacheWrite: 0,
      total: 1_065,
    });
    expect(spendOf(messages, 0)?.input).toBe(1_505);
    // Nothing recorded since then: unknown, not zero.
    expect(spendOf(messages, 6_000)).toBeNull();
  });

  it("reads the older single-document format", () => {
    const doc = {
      sessionId: "s",
      messages: [reply("g1", 2_000, { input: 10, output: 2, cached: 0, thoughts: 1, tool: 0 })],
    };
    expect(spendOf(sessionMessages(JSON.stringify(doc, null, 2)), 0)).toMatchObject({
      input: 10,
      output: 3,
    });
  });

  it("never throws on any text, and never reports a negative or fractional figure", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 400 }),
        fc.integer({ min: 0, max: 10_000 }),
        (t, since) => {
          const spend = spendOf(sessionMessages(t), since);
          for (const value of Object.values(spend ?? {})) {
            expect(Number.isSafeInteger(value) && value >= 0).toBe(true);
          }
        },
      ),
    );
    const odd = [reply("g1", 1, { input: -5, output: Number.NaN, cached: 2.7, thoughts: 2 ** 60 })];
    expect(spendOf(sessionMessages(JSON.stringify({ messages: odd })), 0)).toEqual({
      input: 0,
      output: 0,
      cacheRead: 2,
      cacheWrite: 0,
      total: 2,
    });
  });

  it("a missing file or no path is unknown spend", async () => {
    expect(await readSessionSpend(null, 0)).toBeNull();
    expect(await readSessionSpend(join(dir, "none.jsonl"), 0)).toBeNull();
    const file = join(dir, "session.jsonl");
    writeFileSync(file, `${JSON.stringify(reply("g", 10, { input: 7, output: 3 }))}\n`);
    expect(await readSessionSpend(file, 0)).toMatchObject({ input: 7, output: 3 });
  });
});
