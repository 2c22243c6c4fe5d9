import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatAnswer,
  formatQuestion,
  parseAnswer,
  parseQuestion,
  questionHeader,
  type ServerAnswer,
} from "./server-protocol.js";

const question = fc.record({
  host: fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
  args: fc.array(fc.string()),
  cwd: fc.string().map((s) => `/${s}`),
  umask: fc.integer({ min: 0, max: 0o777 }),
  env: fc.dictionary(
    fc.string({ minLength: 1 }).filter((k) => k !== "__proto__"),
    fc.string(),
  ),
});

describe("hook server questions", () => {
  it("read back what was written, stdin byte for byte whatever it holds", () => {
    fc.assert(
      fc.property(question, fc.string({ unit: "grapheme" }), (q, input) => {
        const parsed = parseQuestion(formatQuestion(q, Buffer.from(input, "utf8")));
        expect(parsed).toEqual({ ...q, input });
      }),
    );
  });

  it("read back the text a hook writes (header, then stdin as text), whatever stdin holds", () => {
    fc.assert(
      fc.property(question, fc.string({ unit: "binary" }), (q, input) => {
        const written = questionHeader(q) + input;
        expect(parseQuestion(written)).toEqual({ ...q, input });
        // Written as UTF-8 and read as bytes, the same question.
        expect(parseQuestion(Buffer.from(written, "utf8"))).toEqual({
          ...q,
          input: Buffer.from(input, "utf8").toString("utf8"),
        });
      }),
    );
  });

  it("are refused when any field is missing or of the wrong kind, never run half-read", () => {
    const good = { v: 1, host: "codex", args: [], cwd: "/p", umask: 18, env: { A: "1" } };
    const bad: Record<string, unknown>[] = [
      { ...good, v: 2 },
      { ...good, host: "../x" },
      { ...good, args: [1] },
      { ...good, cwd: "relative" },
      { ...good, umask: 0o1000 },
      { ...good, umask: 1.5 },
      { ...good, env: { A: 1 } },
      { ...good, env: ["A"] },
    ];
    for (const header of bad) {
      expect(parseQuestion(Buffer.from(`${JSON.stringify(header)}\n{}`))).toBeNull();
    }
    expect(parseQuestion(Buffer.from(JSON.stringify(good)))).toBeNull();
    expect(parseQuestion(Buffer.from("not json\n{}"))).toBeNull();
    expect(parseQuestion(Buffer.from(`${JSON.stringify(good)}\n{}`))).not.toBeNull();
  });

  it("never throw on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(() => parseQuestion(Buffer.from(bytes))).not.toThrow();
      }),
    );
  });
});

describe("hook server answers", () => {
  const answer = fc.oneof(
    fc.record({
      kind: fc.constant("done" as const),
      // JSON has no negative zero.
      code: fc.integer({ min: 0, max: 255 }).map((c) => c + 0),
      stdout: fc.string(),
      stderr: fc.string(),
    }),
    fc.record({ kind: fc.constant("self" as const), why: fc.string() }),
  );

  it("read back what was written", () => {
    fc.assert(
      fc.property(answer, (a: ServerAnswer) => {
        expect(parseAnswer(formatAnswer(a))).toEqual(a);
      }),
    );
  });

  it("are no answer when malformed", () => {
    for (const text of [
      "",
      "{}",
      '{"v":1,"kind":"done","code":0,"stdout":""}',
      '{"v":1,"kind":"done","code":256,"stdout":"","stderr":""}',
      '{"v":1,"kind":"done","code":-1,"stdout":"","stderr":""}',
      '{"v":1,"kind":"self"}',
      '{"v":2,"kind":"self","why":"x"}',
      "null",
    ]) {
      expect(parseAnswer(text)).toBeNull();
    }
  });
});
