/**
 * What kind of error ended a turn, read from every field hosts really send:
 * names and codes (`name`, `type`, `code`, Anthropic's `error.type`, OpenAI's
 * `error.code`, Node's `ECONNRESET`), HTTP statuses (`status`, `statusCode`),
 * a declared `isRetryable`, a `retry-after` header, and the texts (`message`,
 * `data.message`, pi's `errorMessage`, `responseBody`, JSON inside strings),
 * through nested `data`, `error`, `cause`, `errors` and `lastError`.
 *
 * The walk is bounded (depth, node count, string length), never throws, and
 * reads the same input the same way every time. An abort's name wins, then
 * any sign of a context overflow (it repeats on every retry), then codes,
 * a declared `isRetryable`, statuses and `retry-after`, and only then words;
 * among codes and among words, "permanent" beats "transient".
 */

export type ErrorKind = "transient" | "permanent" | "context_overflow" | "abort" | "unknown";

export interface ErrorVerdict {
  kind: ErrorKind;
  /** The evidence the verdict rests on, for logs and `why`. */
  why: string;
}

const MAX_DEPTH = 6;
const MAX_NODES = 200;
const MAX_TEXT = 4_000;
const MAX_JSON = 32_000;

interface Evidence {
  codes: string[];
  statuses: number[];
  retryable: boolean[];
  retryAfter: boolean;
  texts: string[];
}

const CODE_KEYS = ["name", "type", "code", "errno", "error_type", "subtype", "status"] as const;
const STATUS_KEYS = ["status", "statusCode", "status_code", "httpStatus", "api_error_status"];
const FLAG_KEYS = ["isRetryable", "retryable"];
const TEXT_KEYS = [
  "message",
  "errorMessage",
  "error",
  "details",
  "error_details",
  "detail",
  "responseBody",
  "body",
  "statusText",
  "finalError",
];
const NESTED_KEYS = [
  "data",
  "error",
  "cause",
  "errors",
  "lastError",
  "response",
  "body",
  "responseBody",
  "details",
  "innerError",
  "originalError",
];
const HEADER_KEYS = ["responseHeaders", "headers"];

/** Reads a property without letting a throwing getter or a Proxy escape. */
function get(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function ownKeys(value: object): string[] {
  try {
    return Object.keys(value).slice(0, 50);
  } catch {
    return [];
  }
}

/** A JSON object inside a string: the whole string, or `429 {"type":"error",...}`. */
function embeddedJson(text: string): unknown {
  if (text.length > MAX_JSON) return undefined;
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

function gather(root: unknown): Evidence {
  const evidence: Evidence = {
    codes: [],
    statuses: [],
    retryable: [],
    retryAfter: false,
    texts: [],
  };
  const seen = new Set<unknown>();
  const queue: { value: unknown; depth: number }[] = [{ value: root, depth: 0 }];
  let nodes = 0;
  const addText = (text: string, depth: number) => {
    evidence.texts.push(text.slice(0, MAX_TEXT));
    if (depth < MAX_DEPTH) {
      const parsed = embeddedJson(text);
      if (parsed !== undefined) queue.push({ value: parsed, depth: depth + 1 });
    }
  };
  while (queue.length > 0 && nodes < MAX_NODES) {
    const { value, depth } = queue.shift() as { value: unknown; depth: number };
    nodes++;
    if (typeof value === "string") {
      addText(value, depth);
      continue;
    }
    if (typeof value !== "object" || value === null || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      if (depth < MAX_DEPTH)
        for (const item of value.slice(0, 20)) queue.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const key of CODE_KEYS) {
      const code = get(value, key);
      if (typeof code === "string" && code.length > 0 && code.length <= 80)
        evidence.codes.push(code);
    }
    for (const key of [...STATUS_KEYS, "code"]) {
      const status = get(value, key);
      const n = typeof status === "string" && /^\d{3}$/.test(status) ? Number(status) : status;
      if (typeof n === "number" && Number.isInteger(n) && n >= 100 && n <= 599) {
        evidence.statuses.push(n);
      }
    }
    for (const key of FLAG_KEYS) {
      const flag = get(value, key);
      if (typeof flag === "boolean") evidence.retryable.push(flag);
    }
    for (const key of HEADER_KEYS) {
      const headers = get(value, key);
      if (typeof headers === "object" && headers !== null) {
        const names = ownKeys(headers).map((k) => k.toLowerCase());
        if (names.includes("retry-after") || names.includes("retry-after-ms")) {
          evidence.retryAfter = true;
        }
      }
    }
    for (const key of TEXT_KEYS) {
      const text = get(value, key);
      if (typeof text === "string" && text.length > 0) addText(text, depth);
    }
    if (depth >= MAX_DEPTH) continue;
    const nested = new Set([...NESTED_KEYS, ...ownKeys(value)]);
    for (const key of nested) {
      const child = get(value, key);
      if (typeof child === "object" && child !== null)
        queue.push({ value: child, depth: depth + 1 });
    }
  }
  return evidence;
}

const norm = (code: string) => code.toLowerCase().replace(/[\s-]+/g, "_");

const ABORT_CODES = new Set([
  "aborterror",
  "messageabortederror",
  "apiuseraborterror",
  "abort_err",
]);
const OVERFLOW_CODES = new Set([
  "contextoverflowerror",
  "messageoutputlengtherror",
  "context_length_exceeded",
  "model_context_window_exceeded",
  "context_window_exceeded",
  "request_too_large",
  "max_output_tokens",
]);
const PERMANENT_CODES = new Set([
  "providerautherror",
  "authenticationerror",
  "permissiondeniederror",
  "notfounderror",
  "badrequesterror",
  "unprocessableentityerror",
  "contentfiltererror",
  "structuredoutputerror",
  "authentication_error",
  "authentication_failed",
  "permission_error",
  "permission_denied",
  "invalid_request_error",
  "invalid_request",
  "invalid_prompt",
  "not_found_error",
  "invalid_api_key",
  "insufficient_quota",
  "usage_not_included",
  "billing_error",
  "billing_not_active",
  "unauthenticated",
  "invalid_argument",
  "failed_precondition",
]);
const TRANSIENT_CODES = new Set([
  "networkerror",
  "apiconnectionerror",
  "apiconnectiontimeouterror",
  "timeouterror",
  "ratelimiterror",
  "internalservererror",
  "providerresponseheadertimeouterror",
  "providerresponsestreamerror",
  "overloaded_error",
  "overloaded",
  "rate_limit_error",
  "rate_limit",
  "rate_limit_exceeded",
  "too_many_requests",
  "server_is_overloaded",
  "server_error",
  "api_error",
  "service_unavailable",
  "resource_exhausted",
  "unavailable",
  "deadline_exceeded",
  "econnreset",
  "econnrefused",
  "econnaborted",
  "etimedout",
  "enotfound",
  "eai_again",
  "epipe",
  "ehostunreach",
  "enetunreach",
  "und_err_socket",
  "und_err_connect_timeout",
  "und_err_headers_timeout",
  "und_err_body_timeout",
]);

/** Statuses a later attempt may not hit: timeout, conflict, too early, rate limit, server side. */
function statusKind(status: number): "transient" | "permanent" | "context_overflow" | null {
  if (status === 413) return "context_overflow";
  if ([408, 409, 425, 429].includes(status) || (status >= 500 && status <= 599)) return "transient";
  if (status >= 400 && status <= 499) return "permanent";
  return null;
}

/** HTTP statuses written into a message: `429 status code`, `API Error: 529`, `HTTP 503`. */
const TEXT_STATUS = [
  /^\s*(?:api error:?\s*)?(\d{3})\b/i,
  /\b(?:status(?:\s*code)?|http(?:\/\d(?:\.\d)?)?)\s*[:=]?\s*(\d{3})\b/i,
  /\b(\d{3})\s+(?:status code|too many requests|internal server error|bad gateway|service unavailable|gateway time-?out|unauthorized|forbidden|not found|bad request|overloaded|request timeout|conflict|payload too large|unprocessable)/i,
  /\brequest rejected \((\d{3})\)/i,
  /\brepeated (\d{3})\b/i,
];

const OVERFLOW_TEXT = [
  /context[ _-]?(length|window|overflow)/,
  /maximum context/,
  /too many tokens/,
  /token limit/,
  /prompt is too long/,
  /input is too long/,
  /exceeds? the (model'?s? )?(maximum|max)/,
  /max_tokens/,
  /input exceeds context/,
];
/** A timeout is the network's doing, not the user's, even when worded as an abort. */
const TIMEOUT_TEXT = /timed? ?out|timeout/;
const ABORT_TEXT = /\b(abort(ed)?|cancel(l)?ed|interrupted)\b/;
const PERMANENT_TEXT = [
  /unauthori[sz]ed/,
  /authenticat/,
  /invalid[ _-]?(api[ _-]?key|x-api-key|token)/,
  /api[ _-]?key/,
  /permission denied|forbidden/,
  /invalid[ _-]request/,
  /billing|insufficient[ _-]quota|quota exceeded|credit balance/,
  /model[^.\n]{0,40}not (found|supported|exist)/,
];
const TRANSIENT_TEXT = [
  /rate[ _-]?limit/,
  /too many requests|too_many_requests/,
  /overloaded/,
  /temporar(il)?y unavailable|service unavailable|bad gateway|gateway time-?out/,
  /internal server error|server error|internal error/,
  /econnreset|econnrefused|etimedout|enotfound|eai_again|epipe|socket hang up/,
  /network|fetch failed|upstream connect|other side closed/,
  /connection (error|reset|refused|closed|failed|lost|timed out)/,
  /timed? ?out|timeout/,
  /resource[ _-]?exhausted|\bexhausted\b|\bunavailable\b/,
  /\bterminated\b/,
];

function quote(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 77)}...` : line);
}

function firstMatch(texts: string[], patterns: RegExp[]): string | null {
  for (const text of texts) {
    const lower = text.toLowerCase();
    for (const pattern of patterns) {
      const match = pattern.exec(lower);
      if (match) return match[0];
    }
  }
  return null;
}

/** Reads an error from any host; see the module comment for the order of the evidence. */
export function classifyError(error: unknown): ErrorVerdict {
  let evidence: Evidence;
  try {
    evidence = gather(error);
  } catch {
    return { kind: "unknown", why: "the error could not be read" };
  }
  const codes = evidence.codes.map(norm);
  const hasCode = (set: Set<string>) => codes.find((c) => set.has(c));
  const rawCode = (code: string) => evidence.codes[codes.indexOf(code)] ?? code;

  // DOMException("...", "AbortError") has name "AbortError"; a TimeoutError is the network.
  const abort = hasCode(ABORT_CODES);
  if (abort) return { kind: "abort", why: `the error is a ${rawCode(abort)}` };
  const overflow = hasCode(OVERFLOW_CODES);
  if (overflow) return { kind: "context_overflow", why: `code ${quote(rawCode(overflow))}` };
  const textStatuses: number[] = [];
  for (const text of evidence.texts) {
    for (const pattern of TEXT_STATUS) {
      const match = pattern.exec(text);
      if (match?.[1]) textStatuses.push(Number(match[1]));
    }
  }
  const statuses = [...evidence.statuses, ...textStatuses];
  if (statuses.includes(413)) return { kind: "context_overflow", why: "HTTP status 413" };
  // A context overflow repeats on every retry, whatever else the error says of itself.
  const overflowText = firstMatch(evidence.texts, OVERFLOW_TEXT);
  if (overflowText)
    return { kind: "context_overflow", why: `the message says ${quote(overflowText)}` };
  const permanent = hasCode(PERMANENT_CODES);
  const transient = hasCode(TRANSIENT_CODES);
  if (permanent && transient) {
    // Codes that disagree (a generic `invalid_request_error` type around a
    // `server_is_overloaded` code): the HTTP status settles it, else permanent.
    const status = statuses.find((s) => statusKind(s) !== null);
    if (status !== undefined && statusKind(status) === "transient") {
      return {
        kind: "transient",
        why: `code ${quote(rawCode(transient))} with HTTP status ${status}`,
      };
    }
  }
  if (permanent) return { kind: "permanent", why: `code ${quote(rawCode(permanent))}` };
  if (transient) return { kind: "transient", why: `code ${quote(rawCode(transient))}` };
  const declared = evidence.retryable[0];
  if (declared !== undefined) {
    return declared
      ? { kind: "transient", why: "the provider marked it retryable" }
      : { kind: "permanent", why: "the provider marked it not retryable" };
  }
  for (const status of evidence.statuses) {
    const kind = statusKind(status);
    if (kind) return { kind, why: `HTTP status ${status}` };
  }
  if (evidence.retryAfter)
    return { kind: "transient", why: "the response asks to retry after a delay" };

  const timeout = firstMatch(evidence.texts, [TIMEOUT_TEXT]);
  const abortText = timeout === null ? firstMatch(evidence.texts, [ABORT_TEXT]) : null;
  if (abortText) return { kind: "abort", why: `the message says ${quote(abortText)}` };
  for (const status of textStatuses) {
    const kind = statusKind(status);
    if (kind) return { kind, why: `the message gives HTTP status ${status}` };
  }
  const permanentText = firstMatch(evidence.texts, PERMANENT_TEXT);
  if (permanentText) return { kind: "permanent", why: `the message says ${quote(permanentText)}` };
  const transientText = firstMatch(evidence.texts, TRANSIENT_TEXT);
  if (transientText) return { kind: "transient", why: `the message says ${quote(transientText)}` };

  const name = evidence.codes[0];
  const text = evidence.texts[0];
  const seen = [name ? `name ${quote(name)}` : null, text ? `message ${quote(text)}` : null]
    .filter((part) => part !== null)
    .join(", ");
  return {
    kind: "unknown",
    why: seen
      ? `nothing in it says what kind of error it is (${seen})`
      : "the error carries no details",
  };
}
