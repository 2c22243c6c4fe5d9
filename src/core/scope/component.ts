import { sha256Hex } from "../hash/sha256.js";

/**
 * One component of a scope key (an adapter name, a chat id, a job id, ...),
 * encoded so that it is a safe piece of a file name on every OS:
 *
 * - `n` is null; `s<escaped>` is a string; `h<48 hex>` is a string whose
 *   escaped form would be longer than {@link MAX_ESCAPED_LENGTH} (the name
 *   keeps its length bounded and the hash keeps it distinct).
 * - Escaping keeps `a-z`, `0-9` and `-`, writes an upper-case letter as `_`
 *   plus its lower-case form (so case-insensitive file systems cannot merge
 *   two keys), and every other UTF-8 byte as `%` plus two lower-case hex digits.
 *
 * The alphabet is therefore `[a-z0-9_%-]`: no `/`, no `.` (the component
 * separator), nothing a file system reserves, and no trailing dot or space.
 */

/** Longest escaped string stored verbatim; longer values are stored hashed. */
export const MAX_ESCAPED_LENGTH = 48;

/** Hex digits of the SHA-256 kept in a hashed component (192 bits). */
const HASH_HEX_LENGTH = 48;
const HASH_BODY = new RegExp(`^[0-9a-f]{${HASH_HEX_LENGTH}}$`);

export type Component = string | null;

/** A decoded component: its value, or only its hash when it was stored hashed. */
export type DecodedComponent =
  | { form: "null" }
  | { form: "string"; value: string }
  | { form: "hashed"; hash: string };

const HEX = "0123456789abcdef";

function isLiteral(byte: number): boolean {
  return (
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    byte === 0x2d // -
  );
}

function isUpper(byte: number): boolean {
  return byte >= 0x41 && byte <= 0x5a;
}

/**
 * UTF-8 bytes of a JavaScript string, with lone surrogates written as their
 * three-byte form (WTF-8) instead of U+FFFD, so two different strings never
 * share an encoding.
 */
export function wtf8Bytes(value: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < value.length; i++) {
    let cp = value.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
        i++;
      }
    }
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) {
      out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    } else {
      out.push(
        0xf0 | (cp >> 18),
        0x80 | ((cp >> 12) & 0x3f),
        0x80 | ((cp >> 6) & 0x3f),
        0x80 | (cp & 0x3f),
      );
    }
  }
  return Uint8Array.from(out);
}

function escapeBytes(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) {
    if (isLiteral(byte)) out += String.fromCharCode(byte);
    else if (isUpper(byte)) out += `_${String.fromCharCode(byte + 0x20)}`;
    else out += `%${HEX[byte >> 4]}${HEX[byte & 0x0f]}`;
  }
  return out;
}

/** Strings made only of the letters escaping keeps as they are: their escaped form is themselves. */
const PLAIN = /^[a-z0-9-]*$/;

export function encodeComponent(value: Component): string {
  if (value === null) return "n";
  // Most ids (host names, UUIDs, job names) escape to themselves: no byte work needed.
  if (value.length <= MAX_ESCAPED_LENGTH && PLAIN.test(value)) return `s${value}`;
  const bytes = wtf8Bytes(value);
  const escaped = escapeBytes(bytes);
  if (escaped.length <= MAX_ESCAPED_LENGTH) return `s${escaped}`;
  const hash = sha256Hex(bytes);
  return `h${hash.slice(0, HASH_HEX_LENGTH)}`;
}

function unescapeBytes(escaped: string): number[] | null {
  const bytes: number[] = [];
  for (let i = 0; i < escaped.length; i++) {
    const ch = escaped.charCodeAt(i);
    if (isLiteral(ch)) bytes.push(ch);
    else if (ch === 0x5f /* _ */) {
      const next = escaped.charCodeAt(++i);
      if (!(next >= 0x61 && next <= 0x7a)) return null;
      bytes.push(next - 0x20);
    } else if (ch === 0x25 /* % */) {
      const hi = HEX.indexOf(escaped[++i] ?? "");
      const lo = HEX.indexOf(escaped[++i] ?? "");
      if (hi < 0 || lo < 0) return null;
      bytes.push((hi << 4) | lo);
    } else return null;
  }
  return bytes;
}

/** Reads WTF-8 bytes back into a string; null when they are not well formed. */
function decodeWtf8(bytes: number[]): string | null {
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const b0 = bytes[i]!;
    let cp: number;
    let extra: number;
    if (b0 < 0x80) {
      cp = b0;
      extra = 0;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) {
      cp = b0 & 0x1f;
      extra = 1;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      cp = b0 & 0x0f;
      extra = 2;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      cp = b0 & 0x07;
      extra = 3;
    } else return null;
    for (let k = 1; k <= extra; k++) {
      const b = bytes[i + k];
      if (b === undefined || (b & 0xc0) !== 0x80) return null;
      cp = (cp << 6) | (b & 0x3f);
    }
    if (cp > 0x10ffff) return null;
    i += extra + 1;
    out += String.fromCodePoint(cp);
  }
  return out;
}

/**
 * Decodes one component, accepting only the exact form `encodeComponent`
 * produces: every value then has one key and every key one value, so one
 * scope can never be spread over two files.
 */
export function decodeComponent(encoded: string): DecodedComponent | null {
  if (encoded === "n") return { form: "null" };
  const head = encoded[0];
  const body = encoded.slice(1);
  if (head === "h") {
    return HASH_BODY.test(body) ? { form: "hashed", hash: body } : null;
  }
  if (head !== "s" || body.length > MAX_ESCAPED_LENGTH) return null;
  // A body of literal letters only is its own value (and `encodeComponent` gives it back).
  if (PLAIN.test(body)) return { form: "string", value: body };
  const bytes = unescapeBytes(body);
  if (bytes === null) return null;
  const value = decodeWtf8(bytes);
  if (value === null || encodeComponent(value) !== encoded) return null;
  return { form: "string", value };
}
