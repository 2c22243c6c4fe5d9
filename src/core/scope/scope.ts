import { quoteInput } from "../quote.js";
import type { Origin, Scope } from "../types.js";
import { type DecodedComponent, decodeComponent, encodeComponent } from "./component.js";

/**
 * Scope keys: `tui`, `channel/<adapter>.<workspace>.<chat>.<thread>`,
 * `cron/<jobId>` and `session/<host>.<sessionId>`, each component encoded by
 * `encodeComponent`. The only `/` is the one after the kind, and `.` only
 * separates components, so a key is a relative path of at most two segments
 * that can never climb out of the folder it is joined to.
 */

export type ScopeKind = Scope["kind"];

/** The components each keyed kind carries, in key order; `true` = may be null. */
const LAYOUT: Record<Exclude<ScopeKind, "tui">, readonly (readonly [string, boolean])[]> = {
  channel: [
    ["adapter", false],
    ["workspace", true],
    ["chat", false],
    ["thread", true],
  ],
  cron: [["jobId", false]],
  session: [
    ["host", false],
    ["sessionId", false],
  ],
};

const SEPARATOR = ".";

function requireString(origin: Record<string, unknown>, field: string, nullable: boolean) {
  const value = origin[field];
  if (typeof value === "string" || (nullable && value === null)) return value;
  const expected = nullable ? "a string or null" : "a string";
  throw new TypeError(
    `origin.${field} must be ${expected} for a ${String(origin.kind)} origin, got ${describeValue(value)}`,
  );
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

/**
 * The durable scope an origin's todo list hangs off, or null when the origin
 * owns no list: subagents (their parent does), system work (never
 * user-delegated), and a missing or unknown origin. There is deliberately no
 * default scope: an unknown actor must never write into someone else's list.
 *
 * Throws a TypeError naming the field when a known kind is missing one of
 * its identifiers, since that is a wiring bug rather than an unknown origin.
 */
export function resolveScope(origin: Origin | null | undefined): Scope | null {
  if (origin === null || origin === undefined || typeof origin !== "object") return null;
  const kind = (origin as { kind?: unknown }).kind;
  if (kind === "tui") return { key: "tui", kind: "tui" };
  if (kind !== "channel" && kind !== "cron" && kind !== "session") return null;
  const record = origin as unknown as Record<string, unknown>;
  const parts = LAYOUT[kind].map(([field, nullable]) =>
    encodeComponent(requireString(record, field, nullable) as string | null),
  );
  return { key: `${kind}/${parts.join(SEPARATOR)}`, kind };
}

/** Why `key` is not a scope key, or null when it is one. */
export function scopeKeyProblem(key: unknown): string | null {
  if (typeof key !== "string") return `scope key must be a string, got ${describeValue(key)}`;
  if (key === "tui") return null;
  const slash = key.indexOf("/");
  if (slash < 0) return `scope key ${quoteInput(key)} has no kind/ prefix and is not "tui"`;
  const kind = key.slice(0, slash);
  if (kind !== "channel" && kind !== "cron" && kind !== "session") {
    return `scope key ${quoteInput(key)} has unknown kind ${quoteInput(kind)}`;
  }
  const parts = key.slice(slash + 1).split(SEPARATOR);
  const layout = LAYOUT[kind];
  if (parts.length !== layout.length) {
    return `scope key ${quoteInput(key)} needs ${layout.length} component(s) for ${kind}, found ${parts.length}`;
  }
  for (let i = 0; i < layout.length; i++) {
    const [field, nullable] = layout[i]!;
    const decoded = decodeComponent(parts[i]!);
    if (decoded === null) {
      return `scope key ${quoteInput(key)} has a malformed ${field} component ${quoteInput(String(parts[i]))}`;
    }
    if (decoded.form === "null" && !nullable) {
      return `scope key ${quoteInput(key)} has a null ${field}, which ${kind} scopes require`;
    }
  }
  return null;
}

/** The scope a key names, or null when the key is not one `resolveScope` can produce. */
export function parseScopeKey(key: string): Scope | null {
  if (scopeKeyProblem(key) !== null) return null;
  return { key, kind: key === "tui" ? "tui" : (key.slice(0, key.indexOf("/")) as ScopeKind) };
}

/**
 * Throws a clear error unless `scope` is exactly what `resolveScope` or
 * `parseScopeKey` returns: stores call it before touching anything, so a
 * hand-built scope such as `{ key: "../sessions/x" }` never reaches storage.
 */
export function assertScope(scope: unknown): asserts scope is Scope {
  if (typeof scope !== "object" || scope === null) {
    throw new TypeError(
      `invalid scope: expected an object with key and kind, got ${describeValue(scope)}`,
    );
  }
  const { key, kind } = scope as { key?: unknown; kind?: unknown };
  const problem = scopeKeyProblem(key);
  if (problem !== null) throw new TypeError(`invalid scope: ${problem}`);
  const keyKind = key === "tui" ? "tui" : (key as string).slice(0, (key as string).indexOf("/"));
  if (keyKind !== kind) {
    throw new TypeError(
      `invalid scope: kind ${quoteInput(String(kind))} does not match key ${quoteInput(String(key))} (kind ${keyKind})`,
    );
  }
}

function label(component: DecodedComponent): string {
  if (component.form === "null") return "-";
  if (component.form === "hashed") return `#${component.hash.slice(0, 12)}`;
  const { value } = component;
  return /^[\w@:/#+.-]+$/u.test(value) ? value : JSON.stringify(value);
}

/**
 * A human label for listings and messages, with every component decoded
 * (long values stored hashed show as `#` and the start of their hash).
 */
export function describeScope(scope: Scope): string {
  const problem = scopeKeyProblem(scope.key);
  if (problem !== null) return `invalid scope ${JSON.stringify(scope.key)}`;
  if (scope.key === "tui") return "tui (shared)";
  const slash = scope.key.indexOf("/");
  const kind = scope.key.slice(0, slash) as Exclude<ScopeKind, "tui">;
  const parts = scope.key
    .slice(slash + 1)
    .split(SEPARATOR)
    .map((p) => decodeComponent(p)!);
  const [a, b, c, d] = parts.map(label);
  if (kind === "cron") return `cron job ${a}`;
  if (kind === "session") return `${a} session ${b}`;
  const where = [
    parts[1]!.form === "null" ? null : `workspace ${b}`,
    `chat ${c}`,
    parts[3]!.form === "null" ? null : `thread ${d}`,
  ].filter((x) => x !== null);
  return `channel ${a}: ${where.join(", ")}`;
}
