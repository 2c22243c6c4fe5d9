import { editDistance } from "./edit-distance.js";

/**
 * Finding a scope by what a person types: its full key, its label, or a short
 * prefix of either. Pure, so the rules can be tested without a store.
 */

export interface ScopeCandidate<T> {
  value: T;
  /** The scope key: matched case-sensitively, as stored. */
  key: string;
  /** Human names (label, session id, ...): matched case-insensitively. */
  names: string[];
}

export type ScopeMatch<T> =
  | { kind: "found"; candidate: ScopeCandidate<T> }
  | { kind: "ambiguous"; candidates: ScopeCandidate<T>[] }
  | { kind: "missing"; near: ScopeCandidate<T>[] };

/** Most near matches offered after a miss. */
export const MAX_NEAR_MATCHES = 5;

/**
 * Exact key first, then an exact name, then a unique prefix of the key or a
 * name. Several exact names or prefixes are ambiguous; nothing is missing,
 * with the closest spellings offered.
 */
export function matchScope<T>(query: string, candidates: ScopeCandidate<T>[]): ScopeMatch<T> {
  const byKey = candidates.find((c) => c.key === query);
  if (byKey) return { kind: "found", candidate: byKey };
  const lower = query.toLowerCase();
  const exactName = candidates.filter((c) => c.names.some((n) => n.toLowerCase() === lower));
  if (exactName.length === 1 && exactName[0]) return { kind: "found", candidate: exactName[0] };
  if (exactName.length > 1) return { kind: "ambiguous", candidates: exactName };
  if (query === "") return { kind: "missing", near: [] };
  const prefixed = candidates.filter(
    (c) => c.key.startsWith(query) || c.names.some((n) => n.toLowerCase().startsWith(lower)),
  );
  if (prefixed.length === 1 && prefixed[0]) return { kind: "found", candidate: prefixed[0] };
  if (prefixed.length > 1) return { kind: "ambiguous", candidates: prefixed };
  return { kind: "missing", near: nearMatches(query, candidates) };
}

/**
 * How far a query is from a name: the distance to the whole name or to its
 * start of the same length (a mistyped prefix is still close); 0 when the
 * name contains the query.
 */
function distanceTo(query: string, name: string): number {
  if (name.toLowerCase().includes(query.toLowerCase())) return 0;
  return Math.min(editDistance(query, name), editDistance(query, name.slice(0, query.length)));
}

export function nearMatches<T>(
  query: string,
  candidates: ScopeCandidate<T>[],
): ScopeCandidate<T>[] {
  const tolerance = Math.max(2, Math.floor(query.length / 3));
  return candidates
    .map((c) => ({ c, d: Math.min(...[c.key, ...c.names].map((n) => distanceTo(query, n))) }))
    .filter(({ d }) => d <= tolerance)
    .sort((x, y) => x.d - y.d || (x.c.key < y.c.key ? -1 : 1))
    .slice(0, MAX_NEAR_MATCHES)
    .map(({ c }) => c);
}
