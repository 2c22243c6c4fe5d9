import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** A fresh token: 128 random bits, URL-safe. */
export function newToken(): string {
  return randomBytes(16).toString("base64url");
}

export function tokensMatch(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token a request carries: `?token=`, or `Authorization: Bearer` (for scrapers). */
export function requestToken(req: IncomingMessage, url: URL): string | null {
  const fromQuery = url.searchParams.get("token");
  if (fromQuery !== null) return fromQuery;
  const auth = req.headers.authorization;
  if (typeof auth === "string" && auth.startsWith("Bearer ")) return auth.slice(7).trim();
  return null;
}

function hostOnly(host: string): string {
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]!;
}

/**
 * Why a request must be refused before its token is even looked at, or null:
 * a Host header naming another site (DNS rebinding), or a request another
 * origin's page made (cross-origin reads and form posts).
 */
export function crossSiteProblem(
  req: IncomingMessage,
  allowedHosts: ReadonlySet<string>,
  port: number,
): string | null {
  const host = req.headers.host;
  if (typeof host !== "string" || !allowedHosts.has(hostOnly(host)) || !host.endsWith(`:${port}`)) {
    return `the Host header ${JSON.stringify(host ?? "")} is not this dashboard`;
  }
  const origin = req.headers.origin;
  if (typeof origin === "string" && origin !== "null" && origin !== `http://${host}`) {
    return `requests from ${origin} are refused`;
  }
  if (origin === "null") return "requests from an opaque origin are refused";
  const site = req.headers["sec-fetch-site"];
  if (typeof site === "string" && site !== "same-origin" && site !== "none") {
    return `${site} requests are refused`;
  }
  return null;
}

/**
 * Headers on every response: no framing, no sniffing, scripts only from here, and no token in
 * a Referer to another site ("same-origin" rather than "no-referrer", which would make the
 * browser send `Origin: null` on the page's own form posts).
 */
export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
  "cross-origin-resource-policy": "same-origin",
};
