import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatMeta, parseMeta } from "./meta.js";
import { isPlain, isPlainNote, quote, unquote } from "./text.js";

describe("text quoting", () => {
  it("leaves ordinary text plain", () => {
    expect(isPlain("Write the parser")).toBe(true);
    for (const text of ["", " a", "a ", "a\nb", "a\u2028b", '"a"', "\uD83D"]) {
      expect(isPlain(text)).toBe(false);
    }
    expect(isPlainNote("  indented")).toBe(true);
    expect(isPlainNote("trailing ")).toBe(false);
  });

  it("quotes without angle brackets or line breaks and reads back exactly", () => {
    expect(quote("<!-- x -->")).toBe('"\\u003c!-- x --\\u003e"');
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const quoted = quote(text);
        expect(quoted).not.toMatch(/[<>\n\r\u2028\u2029]/);
        expect(unquote(quoted)).toBe(text);
      }),
    );
  });

  it("keeps text that only looks quoted", () => {
    expect(unquote('"a" b')).toBe('"a" b');
    expect(unquote("plain")).toBe("plain");
  });
});

describe("item comment fields", () => {
  it("writes simple values bare and others quoted, in a fixed order", () => {
    expect(formatMeta({ priority: "high", id: "7", activeForm: "Running tests" })).toBe(
      '<!-- id=7 priority=high activeForm="Running tests" -->',
    );
    expect(formatMeta({})).toBe("");
  });

  it("reads back whatever it writes", () => {
    fc.assert(
      fc.property(
        fc.record({ id: fc.string(), phase: fc.string({ unit: "binary" }) }, { requiredKeys: [] }),
        (meta) => {
          const text = formatMeta(meta);
          const inner = text === "" ? "" : text.slice(4, -3);
          expect(parseMeta(inner)).toEqual({ ...meta });
        },
      ),
    );
  });
});
