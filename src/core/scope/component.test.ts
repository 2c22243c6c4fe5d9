import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeComponent, encodeComponent, MAX_ESCAPED_LENGTH, wtf8Bytes } from "./component.js";
import { lookAlikeString, trickyString } from "./test-support/arbitraries.js";

describe("encodeComponent", () => {
  it.each([
    [null, "n"],
    ["", "s"],
    ["n", "sn"],
    ["abc-123", "sabc-123"],
    ["C024BE91L", "s_c024_b_e91_l"],
    ["a.b", "sa%2eb"],
    ["_", "s%5f"],
    ["%", "s%25"],
    ["../x", "s%2e%2e%2fx"],
    ["é", "s%c3%a9"],
    ["😀", "s%f0%9f%98%80"],
  ])("encodes %j as %s", (value, encoded) => {
    expect(encodeComponent(value)).toBe(encoded);
  });

  it("keeps a lone surrogate apart from the replacement character", () => {
    expect(encodeComponent("\uD800")).toBe("s%ed%a0%80");
    expect(encodeComponent("\uFFFD")).toBe("s%ef%bf%bd");
  });

  it("hashes values whose escaped form is too long, keeping them distinct", () => {
    const long = "x".repeat(MAX_ESCAPED_LENGTH + 1);
    expect(encodeComponent("x".repeat(MAX_ESCAPED_LENGTH))).toBe(`s${"x".repeat(48)}`);
    expect(encodeComponent(long)).toMatch(/^h[0-9a-f]{48}$/);
    expect(encodeComponent(long)).not.toBe(encodeComponent(`${long}y`));
  });

  it("only ever emits the file-name-safe alphabet", () => {
    fc.assert(
      fc.property(fc.option(trickyString, { nil: null }), (value) => {
        const encoded = encodeComponent(value);
        expect(encoded).toMatch(/^(n|s[a-z0-9_%-]*|h[0-9a-f]{48})$/);
        expect(encoded.length).toBeLessThanOrEqual(MAX_ESCAPED_LENGTH + 1);
      }),
    );
  });

  it("gives look-alike values distinct encodings", () => {
    fc.assert(
      fc.property(fc.uniqueArray(lookAlikeString, { minLength: 10, maxLength: 60 }), (values) => {
        expect(new Set(values.map(encodeComponent)).size).toBe(values.length);
      }),
    );
  });

  it("is injective", () => {
    fc.assert(
      fc.property(
        fc.option(trickyString, { nil: null }),
        fc.option(trickyString, { nil: null }),
        (a, b) => {
          fc.pre(a !== b);
          expect(encodeComponent(a)).not.toBe(encodeComponent(b));
        },
      ),
    );
  });
});

describe("decodeComponent", () => {
  it("round-trips every value stored verbatim", () => {
    fc.assert(
      fc.property(fc.option(trickyString, { nil: null }), (value) => {
        const decoded = decodeComponent(encodeComponent(value));
        if (value === null) expect(decoded).toEqual({ form: "null" });
        else if (decoded?.form === "hashed") {
          expect(encodeComponent(value).slice(1)).toBe(decoded.hash);
        } else expect(decoded).toEqual({ form: "string", value });
      }),
    );
  });

  it.each([
    ["", "empty"],
    ["x", "unknown discriminant"],
    ["sA", "upper case literal"],
    ["s%41", "escaped upper case instead of _a"],
    ["s%61", "escaped literal"],
    ["s_", "dangling underscore"],
    ["s_1", "underscore before a digit"],
    ["s%zz", "bad hex"],
    ["s%4", "short escape"],
    ["s%C3%A9", "upper-case hex"],
    ["s%c3", "truncated UTF-8"],
    ["s%c0%80", "overlong UTF-8"],
    ["s%e0%80%80", "overlong three-byte UTF-8"],
    ["s%f4%90%80%80", "beyond U+10FFFF"],
    ["s%ed%a0%bd%ed%b8%80", "a surrogate pair written as two halves"],
    ["s.", "separator inside"],
    ["s/", "slash inside"],
    [`s${"x".repeat(MAX_ESCAPED_LENGTH + 1)}`, "verbatim value too long"],
    ["h1234", "short hash"],
    [`h${"A".repeat(48)}`, "upper-case hash"],
    ["nn", "null with a tail"],
  ])("refuses %j (%s)", (encoded) => {
    expect(decodeComponent(encoded)).toBeNull();
  });
});

describe("wtf8Bytes", () => {
  it("matches UTF-8 for well-formed strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (value) => {
        expect(Buffer.from(wtf8Bytes(value)).equals(Buffer.from(value, "utf8"))).toBe(true);
      }),
    );
  });
});
