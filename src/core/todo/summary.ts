import type { Todo, TodoList, TodoSummary } from "../types.js";

/**
 * The fingerprint of the incomplete set: 64 bits of two independent 32-bit
 * hash lanes, as 16 hex characters.
 *
 * Each incomplete item is hashed on its own over its canonical form (id, text
 * and status, whitespace runs collapsed and trimmed on the fly, so no string
 * is built); the item hashes are then added up. A sum does not depend on the
 * order of its terms, so a reorder keeps the fingerprint without sorting, and
 * repeated items still count once each. The whole thing is one pass over the
 * characters with no allocation: it runs on every decision, on a list just
 * read from the store, so nothing is cached.
 *
 * It is not a cryptographic hash and needs not be: it only tells whether the
 * list changed since the last nudge. A collision can only make a changed list
 * look unchanged, which counts toward stagnation: it can stop nudges, never
 * cause one.
 */

const LANE_A_SEED = 0x811c9dc5;
const LANE_B_SEED = 0x3b9ac9ff;
const LANE_A_PRIME = 0x01000193;
const LANE_B_PRIME = 0x5bd1e995;
/**
 * Field markers. UTF-16 code units stop at 0xffff, so these values can never
 * be taken for a character: the encoding of (id, text, status) is unambiguous.
 */
const END_OF_ID = 0x10001;
const NO_ID = 0x10002;
const END_OF_TEXT = 0x10003;

/** Murmur3's finalizer: spreads every input bit over the whole word. */
function mix32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** The characters `\s` matches in a JavaScript regular expression, above U+00A0. */
function isWideSpace(c: number): boolean {
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Lane A of the item being hashed; lane B lives in `laneB` (no allocation per call). */
let laneB = 0;

/**
 * Feeds `canonicalText(text)` (whitespace runs as one space, none at either
 * end) and then the field marker `end` into both lanes; returns lane A.
 */
function feedCanonical(seedA: number, text: string, end: number): number {
  let a = seedA;
  let b = laneB;
  let pendingSpace = false;
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 32 ? c === 32 || (c >= 9 && c <= 13) : c >= 0xa0 && isWideSpace(c)) {
      pendingSpace = started;
      continue;
    }
    if (pendingSpace) {
      a = Math.imul(a ^ 32, LANE_A_PRIME);
      b = Math.imul(b ^ 32, LANE_B_PRIME);
      pendingSpace = false;
    }
    started = true;
    a = Math.imul(a ^ c, LANE_A_PRIME);
    b = Math.imul(b ^ c, LANE_B_PRIME);
  }
  laneB = Math.imul(b ^ end, LANE_B_PRIME);
  return Math.imul(a ^ end, LANE_A_PRIME);
}

function hex32(value: number): string {
  return (value >>> 0).toString(16).padStart(8, "0");
}

/**
 * Fingerprint (16 hex characters) of the canonical incomplete set: a reorder
 * or whitespace-only edit keeps it, any change of text, id or status of an
 * incomplete item moves it, and finished items do not count.
 */
export function fingerprintIncomplete(todos: readonly Todo[]): string {
  return summarizeTodos(todos).fingerprint;
}

/**
 * Counts and fingerprint of a list; the engine decides on this, not on the
 * raw list. One pass, no copies: cheap enough to run on every decision.
 */
export function summarize(list: TodoList): TodoSummary {
  return summarizeTodos(list.todos);
}

/**
 * Fingerprint (16 hex characters) of the whole list, finished items
 * included: a reorder or whitespace-only edit keeps it, any change of text,
 * id or status of any item moves it. Tells one finished list from another
 * (two all-completed lists share the incomplete fingerprint of an empty one).
 */
export function fingerprintList(todos: readonly Todo[]): string {
  return summarizeTodos(todos, true).fingerprint;
}

/** `everything`: finished items count in the fingerprint too (see `fingerprintList`). */
function summarizeTodos(todos: readonly Todo[], everything = false): TodoSummary {
  let actionable = 0;
  let blocked = 0;
  let completed = 0;
  let cancelled = 0;
  let sumA = 0;
  let sumB = 0;
  for (let i = 0; i < todos.length; i++) {
    const todo = todos[i] as Todo;
    let code: number;
    switch (todo.status) {
      case "pending":
        code = 0x20001;
        actionable++;
        break;
      case "in_progress":
        code = 0x20002;
        actionable++;
        break;
      case "blocked":
        code = 0x20003;
        blocked++;
        break;
      case "completed":
        completed++;
        if (!everything) continue;
        code = 0x20004;
        break;
      case "cancelled":
        cancelled++;
        if (!everything) continue;
        code = 0x20005;
        break;
      default:
        // Not a status (only an unparsed hand edit can get here): counted nowhere.
        continue;
    }
    laneB = LANE_B_SEED;
    const id = todo.id;
    let a =
      id === undefined
        ? feedCanonical(LANE_A_SEED, "", NO_ID)
        : feedCanonical(LANE_A_SEED, id, END_OF_ID);
    a = feedCanonical(a, todo.content, END_OF_TEXT);
    sumA = (sumA + mix32(Math.imul(a ^ code, LANE_A_PRIME))) | 0;
    sumB = (sumB + mix32(Math.imul(laneB ^ code, LANE_B_PRIME) ^ 0x9e3779b9)) | 0;
  }
  const incomplete = actionable + blocked;
  // The item count mixed in: the incomplete ones, or every hashed one for the whole list.
  const hashed = everything ? actionable + blocked + completed + cancelled : incomplete;
  return {
    total: todos.length,
    actionable,
    blocked,
    completed,
    cancelled,
    incomplete,
    fingerprint: hex32(mix32(sumA ^ hashed)) + hex32(mix32(sumB + Math.imul(hashed, 0x27d4eb2f))),
  };
}

/**
 * True when `summarize` must give the same answer for both lists: same
 * length and, item by item, the same status, text and id. A plain equality
 * pass (no hashing), so a caller holding the summary of `earlier` can reuse
 * it for a fresh read of the same list instead of summarizing it again.
 */
export function sameSummaryInput(earlier: TodoList, now: TodoList): boolean {
  const a = earlier.todos;
  const b = now.todos;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Todo;
    const y = b[i] as Todo;
    if (x.status !== y.status || x.content !== y.content || x.id !== y.id) return false;
  }
  return true;
}
