import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { analyzeTranscript, readTranscriptTail } from "./transcript.js";

const made: string[] = [];
/** A temp folder removed when the file's tests end. */
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const at = (ms: number) => new Date(ms).toISOString();
const assistant = (id: string, ms: number, usage: object, extra: object = {}) =>
  JSON.stringify({
    type: "assistant",
    timestamp: at(ms),
    message: { id, role: "assistant", stop_reason: "end_turn", usage, content: [] },
    ...extra,
  });
const user = (ms: number, content: unknown) =>
  JSON.stringify({ type: "user", timestamp: at(ms), message: { role: "user", content } });

describe("analyzeTranscript", () => {
  const usage = {
    input_tokens: 100,
    output_tokens: 20,
    cache_read_input_tokens: 1000,
    cache_creation_input_tokens: 5,
  };

  it("sums each response once, however many content blocks it wrote", () => {
    const lines = [
      assistant("m1", 2000, usage),
      assistant("m1", 2001, usage),
      assistant("m2", 3000, usage),
    ];
    expect(analyzeTranscript(lines, 1000).usage).toEqual({
      input: 200,
      output: 40,
      cacheRead: 2000,
      cacheWrite: 10,
      total: 2250,
    });
  });

  it("counts only responses at or after the window start, and never a subagent's", () => {
    const lines = [
      assistant("old", 500, usage),
      assistant("side", 2000, usage, { isSidechain: true }),
      assistant("new", 2000, usage),
    ];
    expect(analyzeTranscript(lines, 1000).usage.input).toBe(100);
  });

  it("sees a user interrupt in the window, in either marker form", () => {
    const plain = [user(2000, [{ type: "text", text: "[Request interrupted by user]" }])];
    const tool = [user(2000, "[Request interrupted by user for tool use]")];
    expect(analyzeTranscript(plain, 1000).interrupted).toBe(true);
    expect(analyzeTranscript(tool, 1000).interrupted).toBe(true);
    expect(analyzeTranscript(plain, 3000).interrupted).toBe(false);
    expect(
      analyzeTranscript([user(2000, "please handle [Request interrupted by user]")], 0).interrupted,
    ).toBe(false);
  });

  it("reports the newest stop reason and skips lines it cannot read", () => {
    const lines = [
      "{",
      "",
      "null",
      assistant("m1", 1, usage),
      JSON.stringify({ type: "assistant", message: { stop_reason: "max_tokens" } }),
    ];
    const facts = analyzeTranscript(lines, 0);
    expect(facts.lastStopReason).toBe("max_tokens");
    expect(facts.interrupted).toBe(false);
  });
});

describe("readTranscriptTail", () => {
  const dir = temp("cc-transcript-");

  it("reads a whole small file and nothing for a missing one", async () => {
    const path = join(dir, "small.jsonl");
    writeFileSync(path, "a\nb\n");
    expect(await readTranscriptTail(path)).toEqual(["a", "b", ""]);
    expect(await readTranscriptTail(join(dir, "missing.jsonl"))).toEqual([]);
  });

  it("drops the cut first line when only the tail is read", async () => {
    const path = join(dir, "big.jsonl");
    writeFileSync(path, `${"x".repeat(50)}\n{"k":1}\n{"k":2}\n`);
    expect(await readTranscriptTail(path, 12)).toEqual(['{"k":2}', ""]);
  });
});
