/**
 * Quoting a caller's text inside an error message. Pure; used by every
 * refusal that names what it was given.
 */

/** Characters of a caller's text an error message quotes; the rest is cut with `…`. */
export const QUOTE_LIMIT = 40;

/**
 * A caller's text quoted for an error message: a JSON string of at most
 * `QUOTE_LIMIT` characters (cut with `…`), so a huge bad value never comes
 * back as a huge error.
 */
export function quoteInput(text: string, limit: number = QUOTE_LIMIT): string {
  const chars = Array.from(text);
  return JSON.stringify(chars.length > limit ? `${chars.slice(0, limit).join("")}…` : text);
}
