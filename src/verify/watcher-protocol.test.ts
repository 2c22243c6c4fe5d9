import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatAnswer,
  formatRequest,
  MAX_LINE,
  parseAnswer,
  parseRequest,
  type WatchAnswer,
  type WatchRequest,
} from "./watcher-protocol.js";

const hex = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: min, maxLength: max });
const id = fc.tuple(hex(1, 32), fc.integer({ min: 0, max: 999_999 })).map(([t, n]) => `${t}-${n}`);
const scope = hex(64, 64);

describe("the watcher's protocol", () => {
  it("reads back every request and answer it writes, within the line limit", () => {
    fc.assert(
      fc.property(fc.option(id, { nil: null }), scope, (stamp, sc) => {
        const request: WatchRequest = { stamp, scope: sc };
        const line = formatRequest(request);
        expect(line.length).toBeLessThanOrEqual(MAX_LINE);
        expect(parseRequest(line)).toEqual(request);
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom("unchanged", "changed", "unknown"), id, scope, (state, i, sc) => {
        const answer: WatchAnswer =
          state === "unknown" ? { state } : { state: state as "changed", id: i, scope: sc };
        expect(parseAnswer(formatAnswer(answer))).toEqual(answer);
      }),
    );
  });

  it("refuses anything else, never throwing: any doubt is no answer", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const answer = parseAnswer(text);
        if (answer !== null) expect(formatAnswer(answer)).toBe(text);
        const request = parseRequest(text);
        if (request !== null)
          expect(formatRequest(request)).toBe(text.endsWith("\n") ? text : `${text}\n`);
      }),
    );
    expect(parseAnswer("unchanged x y\n")).toBeNull();
    expect(parseAnswer(`unchanged ab-1 ${"a".repeat(64)}`)).toBeNull(); // no newline: cut short
    expect(parseRequest(`ask ../x ${"a".repeat(64)}\n`)).toBeNull();
    expect(parseRequest(`ask - ${"a".repeat(64)} extra\n`)).toBeNull();
    expect(parseRequest(`ask - ${"a".repeat(MAX_LINE)}\n`)).toBeNull();
  });
});
