import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
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

describe("analyzeTranscript: a host goal", () => {
  const CONDITION = "the parser and printer are both ported";
  /** A `goal_status` attachment as Claude Code 2.1.332 writes it. */
  const goal = (fields: object) =>
    JSON.stringify({
      type: "attachment",
      timestamp: at(1000),
      attachment: { type: "goal_status", condition: CONDITION, ...fields },
    });
  const set = goal({ met: false, sentinel: true });
  const unmet = goal({ met: false, reason: "not yet" });
  const met = goal({ met: true, reason: "done", iterations: 3 });
  const cleared = goal({ met: true, sentinel: true });
  const impossible = goal({ met: false, failed: true, reason: "cannot" });
  const active = (lines: string[]) => analyzeTranscript(lines, 0).hostGoalActive;

  it("is active from the set entry through unmet checks, whatever came between", () => {
    expect(active([set])).toBe(true);
    expect(active([set, assistant("m1", 2000, {}), unmet, user(3000, "go on")])).toBe(true);
  });

  it("ends when the goal is met, cleared or judged impossible", () => {
    expect(active([set, unmet, met])).toBe(false);
    expect(active([set, cleared])).toBe(false);
    expect(active([set, impossible])).toBe(false);
  });

  it("is active again after a new goal replaces a met one", () => {
    expect(active([set, met, set])).toBe(true);
  });

  it("is inactive without any goal entry, or with one lacking a condition", () => {
    expect(active([assistant("m1", 2000, {}), user(3000, "hi")])).toBe(false);
    expect(
      active([
        JSON.stringify({ type: "attachment", attachment: { type: "goal_status", met: false } }),
      ]),
    ).toBe(false);
  });

  it("ignores a subagent's entries and malformed lines after the last goal entry", () => {
    const sidechain = JSON.stringify({ ...JSON.parse(met), isSidechain: true });
    expect(active([set, sidechain, "{not json", ""])).toBe(true);
  });

  it("follows the newest entry, in any sequence", () => {
    const entries = { set, unmet, met, cleared, impossible } as const;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...(Object.keys(entries) as (keyof typeof entries)[])), {
          maxLength: 20,
        }),
        (kinds) => {
          const last = kinds.at(-1);
          expect(active(kinds.map((k) => entries[k]))).toBe(last === "set" || last === "unmet");
        },
      ),
    );
  });
});

describe("analyzeTranscript: a paused host goal", () => {
  const CONDITION = "every test passes";
  const goal = (fields: object) =>
    JSON.stringify({
      type: "attachment",
      timestamp: at(1000),
      attachment: { type: "goal_status", condition: CONDITION, ...fields },
    });
  const set = goal({ met: false, sentinel: true });
  const unmet = goal({ met: false, reason: "two tests fail" });
  const met = goal({ met: true, reason: "done", iterations: 2 });
  /** The model's PauseGoal call and its result, as Claude Code 2.1.332 writes them. */
  const pauseCall = (id: string) =>
    JSON.stringify({
      type: "assistant",
      timestamp: at(2000),
      message: {
        id: `m-${id}`,
        role: "assistant",
        content: [{ type: "tool_use", id, name: "PauseGoal", input: { reason: "need a key" } }],
      },
    });
  const pauseResult = (id: string, isError = false) =>
    user(2001, [
      {
        type: "tool_result",
        tool_use_id: id,
        is_error: isError,
        content:
          "The goal is paused. The stop check will not send you back until the user sends a message.",
      },
    ]);
  const paused = [set, unmet, pauseCall("p1"), pauseResult("p1")];
  const facts = (lines: string[]) => {
    const f = analyzeTranscript(lines, 0);
    return { active: f.hostGoalActive, paused: f.hostGoalPaused };
  };

  it("set and unmet: active, not paused", () => {
    expect(facts([set])).toEqual({ active: true, paused: false });
    expect(facts([set, unmet])).toEqual({ active: true, paused: false });
  });

  it("paused by a successful PauseGoal: not active (its check will not block), paused", () => {
    expect(facts(paused)).toEqual({ active: false, paused: true });
  });

  it("a refused PauseGoal (an error result) or one still running leaves the goal active", () => {
    expect(facts([set, pauseCall("p1"), pauseResult("p1", true)])).toEqual({
      active: true,
      paused: false,
    });
    expect(facts([set, pauseCall("p1")])).toEqual({ active: true, paused: false });
  });

  it("the user's next prompt lifts the pause; an interrupt or a hook's message does not", () => {
    expect(facts([...paused, user(3000, "here is the key")])).toEqual({
      active: true,
      paused: false,
    });
    expect(facts([...paused, user(3000, "[Request interrupted by user]")])).toEqual({
      active: false,
      paused: true,
    });
    const hookMessage = JSON.stringify({
      ...JSON.parse(user(3000, "Stop hook said")),
      isMeta: true,
    });
    expect(facts([...paused, hookMessage])).toEqual({ active: false, paused: true });
  });

  it("met, cleared, impossible or replaced: never paused", () => {
    expect(facts([...paused, met])).toEqual({ active: false, paused: false });
    expect(facts([...paused, set])).toEqual({ active: true, paused: false });
  });

  it("a PauseGoal with no goal set pauses nothing", () => {
    expect(facts([pauseCall("p1"), pauseResult("p1")])).toEqual({ active: false, paused: false });
    expect(facts([set, met, pauseCall("p1"), pauseResult("p1")])).toEqual({
      active: false,
      paused: false,
    });
  });
});
