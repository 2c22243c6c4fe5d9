/**
 * How free text appears in the markdown format. Ordinary text is written as
 * is; text the line syntax could not carry back exactly (surrounding spaces,
 * line breaks, a leading quote, control characters) is written as a JSON
 * string literal instead, so every value survives a round trip.
 */

const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** No control characters, no line breaks, no broken surrogate pairs. */
function isSingleLine(text: string): boolean {
  return !CONTROL.test(text) && !LONE_SURROGATE.test(text);
}

/** Text that can stand raw on a line: non-empty, trimmed, single-line, not quote-led. */
export function isPlain(text: string): boolean {
  return text !== "" && text === text.trim() && isSingleLine(text) && !text.startsWith('"');
}

/** Like `isPlain`, but leading spaces and the empty string are fine (notes keep them). */
export function isPlainNote(text: string): boolean {
  return text === text.trimEnd() && isSingleLine(text) && !text.trimStart().startsWith('"');
}

/**
 * A JSON string literal that never contains `<`, `>` or a line separator, so
 * it can sit inside an HTML comment and on one line.
 */
export function quote(text: string): string {
  return JSON.stringify(text).replace(
    /[<>\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Reads text written by `quote`, or returns it as is when it is not a JSON string. */
export function unquote(text: string): string {
  if (!text.startsWith('"')) return text;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "string" ? value : text;
  } catch {
    return text;
  }
}
