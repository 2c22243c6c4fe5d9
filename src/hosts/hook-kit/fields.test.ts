import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fieldReaders } from "./fields.js";

class TestInputError extends Error {}
const read = fieldReaders(TestInputError);

describe("hook event field readers", () => {
  it("read what is there, default what is missing, and name the field that is wrong", () => {
    const raw = { s: "x", e: "", b: true, a: [1], n: 3 };
    expect(read.requiredString(raw, "s")).toBe("x");
    expect(read.optionalString(raw, "missing")).toBeNull();
    expect(read.text(raw, "missing")).toBe("");
    expect(read.requiredText(raw, "e")).toBe("");
    expect(read.optionalBoolean(raw, "b")).toBe(true);
    expect(read.optionalArray(raw, "a")).toEqual([1]);
    expect(() => read.requiredString(raw, "e")).toThrow(
      'hook input: e must be a non-empty string, got a string ("")',
    );
    expect(() => read.optionalBoolean(raw, "n")).toThrow(
      "hook input: n must be a boolean, got number",
    );
    expect(() => read.requiredText(raw, "missing")).toThrow(TestInputError);
    expect(() => read.parseObject("[]")).toThrow("hook input must be a JSON object, got an array");
    expect(() => read.parseObject("{")).toThrow(/^hook input is not JSON/);
  });

  it("either return a value of the asked type or throw the host's error, for any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const raw = { f: value };
        const checks: [() => unknown, (v: unknown) => boolean][] = [
          [() => read.optionalString(raw, "f"), (v) => v === null || typeof v === "string"],
          [() => read.text(raw, "f"), (v) => typeof v === "string"],
          [() => read.optionalBoolean(raw, "f"), (v) => typeof v === "boolean"],
          [() => read.optionalArray(raw, "f"), Array.isArray],
          [() => read.requiredString(raw, "f"), (v) => typeof v === "string" && v.trim() !== ""],
        ];
        for (const [run, ok] of checks) {
          try {
            expect(ok(run())).toBe(true);
          } catch (error) {
            expect(error).toBeInstanceOf(TestInputError);
          }
        }
        const text = JSON.stringify(value);
        try {
          expect(read.parseObject(text)).toEqual(JSON.parse(text));
        } catch (error) {
          expect(error).toBeInstanceOf(TestInputError);
        }
      }),
    );
  });
});
