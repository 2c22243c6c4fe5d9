import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DecisionLogEntry } from "../../core/types.js";
import { JOURNAL_LIMIT, journalEntries, type LogJournal, nextJournal } from "./journal.js";
import { type NumberedEntry, numberEntries } from "./log.js";
import { entry as stagnationSkip } from "./test-support/fixtures.js";

function entry(at: number): DecisionLogEntry {
  return stagnationSkip(at, { stagnation: 0 });
}

/**
 * The store's append as `FileStore` makes it, on a log of sequence numbers of which the first
 * `durable` are on disk: what the journal lacks is appended, the fresh entries after it, and the
 * disk catches up only when the append is flushed.
 */
interface Disk {
  log: number[];
  durable: number;
  journal: LogJournal | null;
  written: number;
}

function transact(disk: Disk, count: number): void {
  const lastSeq = disk.log.at(-1) ?? 0;
  const unlogged = journalEntries(disk.journal).filter((line) => line.seq > lastSeq);
  const fresh: NumberedEntry[] = numberEntries(
    Array.from({ length: count }, (_, i) => entry(disk.written + i + 1)),
    Math.max(lastSeq, disk.journal?.seq ?? 0),
  );
  disk.written += count;
  const next = nextJournal(disk.journal, lastSeq, fresh);
  // The state (and its journal) is on disk before the append is made.
  disk.journal = next.journal;
  disk.log.push(...unlogged.map((l) => l.seq), ...fresh.map((l) => l.seq));
  if (next.flush) disk.durable = disk.log.length;
}

/** The entries a reader sees: the log's, then the journal's the log lacks. */
function readable(disk: Disk): number[] {
  const lastSeq = disk.log.at(-1) ?? 0;
  const missing = journalEntries(disk.journal)
    .filter((line) => line.seq > lastSeq)
    .map((line) => line.seq);
  return [...disk.log, ...missing];
}

describe("nextJournal", () => {
  it("keeps every entry the disk may lack, in at most JOURNAL_LIMIT entries", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ count: fc.integer({ min: 1, max: 3 }), lost: fc.boolean() }), {
          minLength: 1,
          maxLength: 80,
        }),
        (steps) => {
          const disk: Disk = { log: [], durable: 0, journal: null, written: 0 };
          for (const { count, lost } of steps) {
            transact(disk, count);
            expect(journalEntries(disk.journal).length).toBeLessThanOrEqual(JOURNAL_LIMIT);
            // The machine goes down: appends not flushed are gone.
            if (lost) disk.log.length = disk.durable;
            const all = Array.from({ length: disk.written }, (_, i) => i + 1);
            expect(readable(disk)).toEqual(all);
          }
          // Once written back, the file holds each entry once, in order.
          transact(disk, 1);
          expect(disk.log).toEqual(Array.from({ length: disk.written }, (_, i) => i + 1));
        },
      ),
    );
  });

  it("flushes when the log holds entries the journal never had", () => {
    const journal: LogJournal = { seq: 3, entries: [entry(3)] };
    const fresh = numberEntries([entry(6)], 5);
    expect(nextJournal(journal, 5, fresh)).toEqual({
      journal: { seq: 6, entries: [entry(6)] },
      flush: true,
    });
    // A state without a journal and a log of trusted lines: those lines may be on no disk.
    expect(nextJournal(null, 2, numberEntries([entry(3)], 2)).flush).toBe(true);
    // A new log: the journal holds all it will hold.
    expect(nextJournal(null, 0, numberEntries([entry(1)], 0))).toEqual({
      journal: { seq: 1, entries: [entry(1)] },
      flush: false,
    });
  });

  it("keeps the journal's entries while they fit, then flushes and starts over", () => {
    let journal: LogJournal | null = { seq: 1, entries: [entry(1)] };
    const flushes: boolean[] = [];
    for (let seq = 2; seq <= 2 * JOURNAL_LIMIT; seq++) {
      const next = nextJournal(journal, seq - 1, numberEntries([entry(seq)], seq - 1));
      flushes.push(next.flush);
      journal = next.journal;
    }
    expect(flushes.filter(Boolean)).toHaveLength(1);
    expect(flushes.indexOf(true)).toBe(JOURNAL_LIMIT - 1);
  });
});
