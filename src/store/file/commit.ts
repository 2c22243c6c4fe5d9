import { linkSync, renameSync } from "node:fs";
import {
  type DirSyncer,
  removeIfPresent,
  syncDirsOf,
  tempPathFor,
  writeDurably,
  writeEachDurably,
} from "./atomic.js";
import type { RawDocument } from "./documents.js";
import { flushFoldersLater } from "./flush-later.js";
import type { PreparedLogAppend } from "./log.js";
import { preserveCopy } from "./preserve.js";
import { holdForLater, release, releaseLater } from "./release-later.js";

/** One document a transaction replaces. */
export interface DocumentWrite {
  path: string;
  bytes: Uint8Array;
  /** The document as the transaction read it: what a failed commit puts back. */
  previous: RawDocument;
  /** Keep a copy of the current file first (it held something a read could not keep). */
  preserve: boolean;
}

/** The stop marker's wanted state; null leaves it alone. */
export interface StopMarkerChange {
  path: string;
  present: boolean;
}

export interface TransactionWrites {
  documents: readonly DocumentWrite[];
  /** Prepares the log append; runs after the documents' temporaries are written. */
  prepareLog: () => PreparedLogAppend | null;
  stop: StopMarkerChange | null;
}

/** The points of a commit between two changes a crash could separate. */
export type CommitStep = "prepared" | "marker-created" | "document-renamed" | "log-appended";

/**
 * Called at each step of every commit. Only the crash tests set it (to kill
 * the process there); it stays empty otherwise.
 */
export const commitProbe: { reached: ((step: CommitStep) => void) | null } = { reached: null };

const STOP_MARKER_TEXT =
  "The user stopped continuation for this scope; `resume` removes this file.\n";

/**
 * Commits a transaction all or nothing. Everything that can be refused is done
 * first and changes nothing visible: each document's temporary is written and
 * flushed, copies of damaged documents are kept, the log append is prepared
 * (a symlink or folder at the log's name fails here). Then, after
 * `beforeCommit` (the caller re-checks its lock): the stop marker is created,
 * the documents renamed into place, the log appended, the stop marker removed.
 * When any of these fails, those already done are undone, so a retried
 * transaction is never applied twice. A stop is created first and removed last,
 * so a crash between the steps can only leave the scope stopped. The log comes
 * after the state, whose rename is the commit: a crash before it leaves no
 * entry, and one after it leaves the entry in the state's journal, which the
 * next transaction appends (see `LogJournal`).
 */
export function commitTransaction(
  writes: TransactionWrites,
  tag: string,
  beforeCommit: () => void,
  dirs: DirSyncer,
): void {
  const temps: string[] = [];
  const copies = new Map<string, string>();
  const renamed: DocumentWrite[] = [];
  /** Second names of replaced files, removed after the answer (see `release-later.ts`). */
  const held: string[] = [];
  let log: PreparedLogAppend | null = null;
  let markerCreated = false;
  /** Every temporary was renamed into place: none is left to remove. */
  let committed = false;
  try {
    const files = writes.documents.map((write) => ({
      path: tempPathFor(write.path, tag),
      bytes: write.bytes,
    }));
    temps.push(...files.map((file) => file.path));
    writeEachDurably(files);
    for (const write of writes.documents) {
      if (!write.preserve || !write.previous.exists) continue;
      const copy = preserveCopy(write.path);
      if (copy !== null) copies.set(write.path, copy);
    }
    log = writes.prepareLog();
    beforeCommit();
    const probe = commitProbe.reached;
    probe?.("prepared");
    try {
      if (writes.stop?.present) {
        writeDurably(writes.stop.path, Buffer.from(STOP_MARKER_TEXT));
        markerCreated = true;
        probe?.("marker-created");
      }
      for (const write of writes.documents) {
        const hold = write.previous.exists ? holdForLater(write.path) : null;
        if (hold !== null) held.push(hold);
        renameSync(tempPathFor(write.path, tag), write.path);
        renamed.push(write);
        probe?.("document-renamed");
      }
      log?.commit();
      if (log !== null) probe?.("log-appended");
      if (writes.stop !== null && !writes.stop.present) removeIfPresent(writes.stop.path);
      committed = true;
    } catch (error) {
      undo(renamed, copies, log, markerCreated ? writes.stop : null, tag);
      throw error;
    }
  } finally {
    // A failed commit put the old files back: their second names go now.
    if (!committed) for (const hold of held) release(hold);
    try {
      log?.dispose();
    } catch {
      // Best effort, as for the temporaries below.
    }
    // After a commit there is none (a failed unlink costs the error's making, on every write).
    for (const temp of committed ? [] : temps) {
      try {
        removeIfPresent(temp);
      } catch {
        // Best effort: a leftover temporary is removed when the scope's lock is next taken.
      }
    }
  }
  const touched = writes.documents.map((w) => w.path);
  if (writes.stop !== null) touched.push(writes.stop.path);
  // In a resident server's event, after the answer (see `flush-later.ts`).
  const later = writes.stop === null && log?.flushes !== true && flushFoldersLater(touched);
  try {
    if (!later) syncDirsOf(touched, dirs);
  } finally {
    for (const hold of held) releaseLater(hold);
  }
}

/** Puts back what a failed commit changed, newest first; best effort, the first error wins. */
function undo(
  renamed: readonly DocumentWrite[],
  copies: ReadonlyMap<string, string>,
  log: PreparedLogAppend | null,
  marker: StopMarkerChange | null,
  tag: string,
): void {
  const steps: (() => void)[] = [];
  if (log !== null) steps.push(() => log.undo());
  for (const write of [...renamed].reverse()) {
    steps.push(() => restore(write, copies.get(write.path), tag));
  }
  if (marker !== null) steps.push(() => removeIfPresent(marker.path));
  for (const step of steps) {
    try {
      step();
    } catch {
      // The original error is the one the caller must see.
    }
  }
}

function restore(write: DocumentWrite, copy: string | undefined, tag: string): void {
  const { previous } = write;
  const temp = tempPathFor(write.path, tag);
  if (!previous.exists) {
    removeIfPresent(write.path);
  } else if (previous.bytes !== null) {
    writeDurably(temp, previous.bytes);
    renameSync(temp, write.path);
  } else if (copy !== undefined) {
    removeIfPresent(temp);
    linkSync(copy, temp);
    renameSync(temp, write.path);
  }
}
