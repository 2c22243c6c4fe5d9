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

/**
 * The name in a Host header, lowercased and without its port or a trailing dot, or null when
 * the header is not a host with an optional port.
 */
export function hostName(header: string): string | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(header.trim());
  if (match === null) return null;
  if (match[2] !== undefined && Number(match[2]) > 65535) return null;
  const name = match[1]!.toLowerCase();
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

const LOOPBACK_V4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * Whether a Host name can only reach this machine: `localhost` and `*.localhost`, 127.0.0.0/8
 * and `[::1]`. A page on another site cannot make a browser send these (DNS rebinding needs a
 * name that resolves elsewhere first), whatever the port, so port forwarding keeps working.
 */
export function isLoopbackName(name: string): boolean {
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (name === "[::1]" || name === "[0:0:0:0:0:0:0:1]") return true;
  const v4 = LOOPBACK_V4.exec(name);
  return v4?.slice(1).every((part) => Number(part) <= 255) ?? false;
}

/**
 * Why a request must be refused before its token is even looked at, or null:
 * a Host header naming another site (DNS rebinding), or a request another
 * origin's page made (cross-origin reads and form posts). `boundHost` (the
 * address the server listens on) is accepted too, for a dashboard bound to a
 * network address on purpose.
 */
export function crossSiteProblem(req: IncomingMessage, boundHost: string): string | null {
  const host = req.headers.host;
  const name = typeof host === "string" ? hostName(host) : null;
  const bound = boundHost.includes(":") ? `[${boundHost.toLowerCase()}]` : boundHost.toLowerCase();
  if (name === null || (!isLoopbackName(name) && name !== bound)) {
    return `the Host header ${JSON.stringify(host ?? "")} is not this dashboard`;
  }
  const origin = req.headers.origin;
  if (origin === "null") return "requests from an opaque origin are refused";
  if (typeof origin === "string" && !sameHost(origin, host!)) {
    return `requests from ${origin} are refused`;
  }
  const site = req.headers["sec-fetch-site"];
  if (typeof site === "string" && site !== "same-origin" && site !== "none") {
    return `${site} requests are refused`;
  }
  return null;
}

/** Whether an Origin header is the page this Host header names (over http). */
function sameHost(origin: string, host: string): boolean {
  try {
    const a = new URL(origin);
    const b = new URL(`http://${host.trim()}`);
    return a.protocol === "http:" && a.host === b.host;
  } catch {
    return false;
  }
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
