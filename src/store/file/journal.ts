import type { DecisionLogEntry } from "../../core/types.js";
import { type NumberedEntry, parseLogEntry } from "./log.js";

/**
 * The decision-log entries of the transaction that last wrote a state
 * document, kept inside that document (under its checksum). The state's
 * rename is the moment a decision commits; the log append follows. Should a
 * crash come between the two, the next transaction appends what the journal
 * holds and the log's own sequence numbers lack, and readers count it as
 * logged already: the log never holds a decision whose state did not commit,
 * never loses one whose state did, and never holds one twice.
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
