import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { turnEvidence } from "./evidence.js";
import { type RecordedMessage, sessionMessages } from "./usage.js";

const at = (ms: number) => new Date(ms).toISOString();
const user = (id: string, ms: number, content: unknown = "text"): RecordedMessage =>
  ({ id, timestamp: at(ms), type: "user", content }) as unknown as RecordedMessage;
const gemini = (id: string, ms: number): RecordedMessage =>
  ({ id, timestamp: at(ms), type: "gemini", content: "" }) as unknown as RecordedMessage;

describe("turnEvidence", () => {
  it("reads the turn's end from what Gemini CLI 0.61 recorded after the last decision", () => {
    const block = 10_000;
    const upToBlock = [
      user("u1", 1_000),
      gemini("g1", 2_000),
      user("fr1", 3_000),
      gemini("g2", 4_000),
    ];
    // The nudge, a tool call, its response, and the final reply: a finished call.
    const finished = [
      ...upToBlock,
      user("n", 11_000),
      gemini("g3", 12_000),
      user("fr2", 13_000),
      gemini("g4", 14_000),
    ];
    expect(turnEvidence(finished, block)).toEqual({ kind: "reply", replyId: "g4" });
    // Esc while the model answers the tool's response: the response is recorded, the reply never is.
    const cancelled = finished.slice(0, -1);
    expect(turnEvidence(cancelled, block)).toEqual({ kind: "cut-off", requestId: "fr2" });
    // Esc during our nudge's own call.
    expect(turnEvidence([...upToBlock, user("n", 11_000)], block)).toEqual({
      kind: "cut-off",
      requestId: "n",
    });
    // No model call at all since the block (the loop detector's hollow AfterAgent).
    expect(turnEvidence(upToBlock, block)).toEqual({ kind: "no-call", lastReplyId: "g2" });
    expect(turnEvidence([], block)).toEqual({ kind: "no-call", lastReplyId: null });
  });

  it("ignores records that are neither a request nor a reply, and undated records count as old", () => {
    const info = {
      id: "i",
      timestamp: at(20_000),
      type: "info",
      content: "x",
    } as unknown as RecordedMessage;
    expect(turnEvidence([user("u", 15_000), info], 10_000)).toEqual({
      kind: "cut-off",
      requestId: "u",
    });
    const undated = {
      id: "g",
      type: "gemini",
      timestamp: "not a date",
    } as unknown as RecordedMessage;
    expect(turnEvidence([undated], 0)).toEqual({ kind: "no-call", lastReplyId: "g" });
  });

  it("takes a reply's order from its first record, though the CLI writes it again with its tool calls", () => {
    const lines = [
      user("u1", 11_000),
      gemini("g1", 12_000),
      user("fr", 13_000),
      // recordToolCalls appends the reply again once its tools ran: still before the response.
      { ...gemini("g1", 12_000), toolCalls: [{ name: "write_todos" }] },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n");
    expect(turnEvidence(sessionMessages(lines), 10_000)).toEqual({
      kind: "cut-off",
      requestId: "fr",
    });
  });

  it("never calls a turn finished unless its last record is a reply after `since`", () => {
    const record = fc.record({
      id: fc.string({ minLength: 1, maxLength: 4 }),
      ms: fc.integer({ min: 0, max: 100 }),
      type: fc.constantFrom("user", "gemini", "info"),
    });
    fc.assert(
      fc.property(fc.array(record), fc.integer({ min: 0, max: 100 }), (records, since) => {
        const messages = records.map(
          (r) => ({ id: r.id, timestamp: at(r.ms), type: r.type }) as unknown as RecordedMessage,
        );
        const evidence = turnEvidence(messages, since);
        const last = messages.filter((m) => m.type !== "info").at(-1);
        if (evidence.kind === "reply") {
          expect(last?.type).toBe("gemini");
          expect(Date.parse(String(last?.timestamp))).toBeGreaterThan(since);
        }
        if (evidence.kind === "cut-off") expect(last?.type).toBe("user");
      }),
    );
  });
});
