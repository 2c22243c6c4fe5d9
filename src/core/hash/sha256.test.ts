import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { randomHex } from "./random-hex.js";
import { SMALL_INPUT, sha256Hex, sha256HexHere } from "./sha256.js";

const native = (input: string | Uint8Array) => createHash("sha256").update(input).digest("hex");

describe("sha256Hex", () => {
  it("matches the published test vectors", () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(sha256HexHere(bytes(""))).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    expect(sha256HexHere(bytes("abc"))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(sha256HexHere(bytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
  });

  it("gives node:crypto's digest for every length around a block's edges", () => {
    for (let length = 0; length <= 200; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff);
      expect(sha256HexHere(bytes), `length ${length}`).toBe(native(bytes));
    }
  });

  it("gives node:crypto's digest for any text, short or long, hashed here or there", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: SMALL_INPUT + 200 }), (text) => {
        expect(sha256Hex(text)).toBe(native(text));
      }),
      { numRuns: 300 },
    );
    const long = "é".repeat(SMALL_INPUT + 1);
    expect(sha256Hex(long)).toBe(native(long));
  });

  it("gives node:crypto's digest for any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1000 }), (bytes) => {
        expect(sha256Hex(bytes)).toBe(native(bytes));
      }),
    );
  });
});

describe("randomHex", () => {
  it("gives two hex digits per byte, and does not repeat itself", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const hex = randomHex(4);
      expect(hex).toMatch(/^[0-9a-f]{8}$/);
      seen.add(hex);
    }
    // 10,000 draws from 2^32 values: a repeat is a one-in-a-hundred-thousand event.
    expect(seen.size).toBeGreaterThan(9_990);
  });
});
