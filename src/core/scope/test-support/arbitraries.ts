import fc from "fast-check";
import type { Origin } from "../../types.js";

/** Pieces that broke lossy key schemes: separators, escapes, traversal, case, surrogates. */
const TRICKY_UNITS = [
  "",
  "n",
  "s",
  "h",
  "_",
  "%",
  "%2e",
  "_a",
  ".",
  "..",
  "../",
  "/",
  "\\",
  ":",
  "*",
  "?",
  '"',
  "<",
  ">",
  "|",
  " ",
  "\u0000",
  "A",
  "a",
  "NUL",
  "con",
  "é",
  "e\u0301",
  "\uFFFD",
  "😀",
  "\uD83D",
  "\uDE00",
];

const unit = fc.oneof(
  fc.constantFrom(...TRICKY_UNITS),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
);

/** Strings built from tricky pieces, short and occasionally long enough to be hashed. */
export const trickyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.array(unit, { maxLength: 8 }).map((parts) => parts.join("")) },
  { weight: 1, arbitrary: fc.array(unit, { minLength: 20, maxLength: 80 }).map((p) => p.join("")) },
  { weight: 1, arbitrary: fc.constantFrom(...TRICKY_UNITS) },
);

/**
 * Short strings over a tiny alphabet of look-alikes (case, escapes, separators,
 * surrogates): many distinct values per run that a lossy scheme would merge.
 */
export const lookAlikeString: fc.Arbitrary<string> = fc.string({
  unit: fc.constantFrom("a", "A", "_", "%", "61", "n", "s", ".", "/", "é", "\uD800", "\uFFFD"),
  maxLength: 4,
});

const nullableTricky = fc.option(trickyString, { nil: null, freq: 3 });

/** Any origin that owns a scope. */
export const scopedOrigin: fc.Arbitrary<Origin> = fc.oneof(
  fc.constant<Origin>({ kind: "tui" }),
  fc.record({
    kind: fc.constant("channel" as const),
    adapter: trickyString,
    workspace: nullableTricky,
    chat: trickyString,
    thread: nullableTricky,
  }),
  fc.record({ kind: fc.constant("cron" as const), jobId: trickyString }),
  fc.record({ kind: fc.constant("session" as const), host: trickyString, sessionId: trickyString }),
);

/** Origins whose fields come from {@link lookAlikeString}, so near-collisions are common. */
export const lookAlikeOrigin: fc.Arbitrary<Origin> = fc.oneof(
  fc.record({
    kind: fc.constant("channel" as const),
    adapter: lookAlikeString,
    workspace: fc.option(lookAlikeString, { nil: null }),
    chat: lookAlikeString,
    thread: fc.option(lookAlikeString, { nil: null }),
  }),
  fc.record({ kind: fc.constant("cron" as const), jobId: lookAlikeString }),
  fc.record({
    kind: fc.constant("session" as const),
    host: lookAlikeString,
    sessionId: lookAlikeString,
  }),
);

/** A stable identity for an origin, to tell whether two generated origins are the same. */
export function originIdentity(origin: Origin): string {
  return JSON.stringify(origin, Object.keys(origin).sort());
}
