import type { DecisionLogEntry } from "../../core/types.js";
import { type NumberedEntry, parseLogEntry } from "./log.js";

/**
 * The newest decision-log entries, kept inside the state document (under its
 * checksum): at least those of the transaction that last wrote it, and every
 * entry since the log was last flushed to disk. The state's rename is the
 * moment a decision commits; the log append follows. Should a crash come
 * between the two, or should the machine lose appends the disk never got, the
 * next transaction appends what the journal holds and the log's own sequence
 * numbers lack, and readers count it as logged already: the log never holds a
 * decision whose state did not commit, never loses one whose state did, and
 * never holds one twice. So an append is flushed (fsync) only once the journal
 * would hold more than `JOURNAL_LIMIT` entries: the state's own flush keeps
 * the others.
 */
export interface LogJournal {
  /** Sequence number of the last entry; the entries are numbered up to it. */
  seq: number;
  entries: DecisionLogEntry[];
}

/** The field of a state document that holds its journal. */
export const JOURNAL_FIELD = "logJournal";

/** A journal as stored, or null when absent or not one the store wrote. */
export function parseJournal(raw: unknown): LogJournal | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const { seq, entries } = raw as { seq?: unknown; entries?: unknown };
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1) return null;
  if (!Array.isArray(entries) || entries.length === 0 || entries.length > seq) return null;
  const parsed: DecisionLogEntry[] = [];
  for (const entry of entries) {
    const one = parseLogEntry(entry);
    if (one === null) return null;
    parsed.push(one);
  }
  return { seq, entries: parsed };
}

/** The journal's entries with their sequence numbers. */
export function journalEntries(journal: LogJournal | null): NumberedEntry[] {
  if (journal === null) return [];
  const first = journal.seq - journal.entries.length + 1;
  return journal.entries.map((entry, i) => ({ seq: first + i, entry }));
}

/** The journal of numbered entries (null for none). */
export function journalOf(entries: readonly NumberedEntry[]): LogJournal | null {
  const last = entries[entries.length - 1];
  if (last === undefined) return null;
  return { seq: last.seq, entries: entries.map((line) => line.entry) };
}

/** The most entries a journal holds: an append that would make it hold more is flushed to disk. */
export const JOURNAL_LIMIT = 8;

/**
 * The journal a transaction writes with its state, after appending `fresh` to a log whose last
 * entry is `lastSeq`, and whether that append must be flushed to disk now. It keeps the entries
 * of `previous` (perhaps not on disk yet) when they run on into `fresh` and all fit in
 * `JOURNAL_LIMIT`; otherwise the append is flushed and the journal holds `fresh` alone.
 */
export function nextJournal(
  previous: LogJournal | null,
  lastSeq: number,
  fresh: readonly NumberedEntry[],
): { journal: LogJournal | null; flush: boolean } {
  const first = fresh[0];
  // The journal must reach back to the log's last entry (a new log has none): entries the log
  // holds beyond it are in no journal, so the append reaches the disk now.
  const from = previous?.seq ?? 0;
  if (first === undefined || first.seq !== from + 1 || lastSeq > from) {
    return { journal: journalOf(fresh), flush: true };
  }
  const kept = journalEntries(previous);
  if (kept.length + fresh.length > JOURNAL_LIMIT) return { journal: journalOf(fresh), flush: true };
  return { journal: journalOf([...kept, ...fresh]), flush: false };
}
