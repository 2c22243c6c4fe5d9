import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeValue, formatIssues, formatPath, parseInput } from "./issues.js";

describe("formatPath", () => {
  it("writes paths the way the model wrote the input", () => {
    expect(formatPath([])).toBe("input");
    expect(formatPath(["todos", 2, "status"])).toBe("todos[2].status");
    expect(formatPath([0, "a"])).toBe("input[0].a");
    expect(formatPath(["odd key", "x"])).toBe('input["odd key"].x');
  });
});

describe("describeValue", () => {
  it.each([
    [undefined, "nothing"],
    [null, "null"],
    ["done", '"done"'],
    [3, "3"],
    [false, "false"],
    [[1], "an array"],
    [{ a: 1 }, "an object"],
    [() => 1, "a function"],
  ])("describes %j as %s", (value, text) => {
    expect(describeValue(value)).toBe(text);
  });

  it("describes a bigint", () => {
    expect(describeValue(10n)).toBe("10n");
  });

  it("cuts long strings short", () => {
    expect(describeValue("x".repeat(100))).toBe(`"${"x".repeat(40)}…"`);
  });
});

describe("formatIssues", () => {
  const schema = z.strictObject({
    list: z.array(z.strictObject({ n: z.number(), tag: z.literal("a") })).max(2),
    word: z.string().max(3).optional(),
  });

  function messageFor(input: unknown): string {
    const parsed = schema.safeParse(input, { reportInput: true });
    if (parsed.success) throw new Error("expected a failure");
    return formatIssues("tool", parsed.error.issues, schema);
  }

  it("names each bad field once, with what was expected and what came", () => {
    expect(messageFor({ list: [{ n: "1", tag: "b", extra: 1 }] })).toBe(
      'tool: list[0].n must be a number (got "1"); list[0].tag must be "a" (got "b"); list[0] has unknown field "extra" (allowed: n, tag)',
    );
  });

  it("explains size limits", () => {
    expect(messageFor({ list: [], word: "long" })).toBe(
      "tool: word must be at most 3 characters long",
    );
    expect(
      messageFor({
        list: [
          { n: 1, tag: "a" },
          { n: 1, tag: "a" },
          { n: 1, tag: "a" },
        ],
      }),
    ).toBe("tool: list must contain at most 2 items");
  });

  it("stops after five problems", () => {
    const list = Array.from({ length: 2 }, () => ({ n: "x", tag: "x", more: 1 }));
    expect(messageFor({ list, word: 1, other: 2 })).toMatch(/; and 3 more$/);
  });
});

describe("parseInput", () => {
  const none = z.strictObject({});

  it("treats a missing input as empty only where asked", () => {
    expect(parseInput("t", none, undefined, { emptyIsObject: true })).toEqual({
      ok: true,
      value: {},
    });
    expect(parseInput("t", none, null, { emptyIsObject: true })).toEqual({ ok: true, value: {} });
    expect(parseInput("t", none, undefined)).toEqual({
      ok: false,
      message: "t: input must be an object (got nothing)",
    });
  });
});
