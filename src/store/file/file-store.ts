import { lstatSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { emptyState } from "../../core/engine/state.js";
import { describeScope } from "../../core/scope/scope.js";
import { emptyList } from "../../core/todo/model.js";
import type {
  DecisionLogEntry,
  ScanOptions,
  Scope,
  ScopeScan,
  ScopeSnapshot,
  Store,
  StoreProblem,
  TransactionResult,
} from "../../core/types.js";
import { resolveStoreRoot } from "../root.js";
import { checkScanOptions } from "../scan.js";
import { DirHandles, removeIfPresent, syncDirsOf, tempPathFor } from "./atomic.js";
import { commitTransaction, type DocumentWrite } from "./commit.js";
import {
  checkState,
  checkTodoList,
  listLosesData,
  nextRevision,
  readDocument,
  readState,
  readTodoList,
  serializeState,
  serializeTodoList,
} from "./documents.js";
import { journalEntries, nextJournal } from "./journal.js";
import { LockLeases } from "./lease.js";
import { listScopeKeysAsync } from "./list.js";
import {
  assertStillHeld,
  describeHost,
  type HeldLock,
  LockLostError,
  type LockOwner,
  type LockRecord,
  lockHolder,
  newLockOwner,
} from "./lock.js";
import {
  type LogTail,
  logUnreadable,
  type NumberedEntry,
  numberEntries,
  parseLogEntry,
  prepareLogAppend,
  previousGeneration,
  readLogEntries,
  readLogTail,
} from "./log.js";
import { removeOrphanedTemps } from "./orphans.js";
import { checkDirs, type ScopePaths, scopePaths } from "./paths.js";
import { preservedCopies, preservedCopiesOf } from "./preserve.js";
import { describeProblems } from "./problems.js";
import { scanFileStore } from "./scan.js";
import { scanNamedScopes } from "./scan-named.js";
import { announceWaiting, leaveQueue, someoneAhead, waitPath } from "./wait-queue.js";

/** Decision-log entries kept per scope unless told otherwise. */
export const DEFAULT_LOG_LIMIT = 200;
/** A lock whose holder is alive but has held it this long is taken over. */
export const DEFAULT_LOCK_STALE_MS = 10_000;
/** How long a transaction waits for a scope's lock before giving up. */
export const DEFAULT_LOCK_TIMEOUT_MS = 30_000;

/** Name of the folder under the root that holds every list, state and log. */
export const TODO_FOLDER = "todo";

/** Scopes whose validated paths an instance remembers. */
const PATH_CACHE_SIZE = 1024;

/** Longest pause between two looks at a busy lock (the head of the queue looks every 1 ms). */
const MAX_POLL_MS = 16;

/** Transactions retried after this holder's lock was taken over while it stalled. */
const MAX_LOST_LOCK_RETRIES = 3;

export interface FileStoreOptions {
  /** Store root; default `resolveStoreRoot()` (env `TODO_CONTINUATION_DIR`, then XDG state). */
  root?: string;
  /** Decision-log entries kept per scope (default 200). */
  logLimit?: number;
  /** Age after which a live holder's lock is taken over (default 10 s). */
  lockStaleMs?: number;
  /** How long a transaction waits for a lock before failing (default 30 s). */
  lockTimeoutMs?: number;
}

/** A store on plain files; `root` and `todoDir` say where. */
export interface FileStore extends Store {
  readonly root: string;
  readonly todoDir: string;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`createFileStore: ${name} must be a positive integer, got ${value}`);
  }
  return value;
}

function checkLogEntries(entries: unknown): DecisionLogEntry[] {
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) throw new TypeError("transaction returned a log that is not a list");
  entries.forEach((entry, index) => {
    if (parseLogEntry(JSON.parse(JSON.stringify(entry ?? null))) === null) {
      throw new TypeError(`transaction returned an invalid decision log entry at log[${index}]`);
    }
  });
  return entries as DecisionLogEntry[];
}

/**
 * The embedded default store. Layout under `<root>/todo/`:
 * `<key>.json` (list), `.state/<key>.json` (continuation state),
 * `.state/<key>.log.jsonl` (decision log) and `.state/<key>.lock`.
 *
 * Inside a transaction every file operation is synchronous: two transactions
 * of one process can never interleave, and no thread-pool round trip is paid
 * per syscall. Waiting for a lock another process holds is asynchronous. A
 * scope's lock is kept until the event loop next turns (see `LockLeases`), so
 * a burst of transactions takes it once.
 */
class FileStoreImpl implements FileStore {
  readonly root: string;
  readonly todoDir: string;
  readonly #logLimit: number;
  readonly #staleMs: number;
  readonly #timeoutMs: number;
  readonly #owner: LockOwner = newLockOwner();
  readonly #leases: LockLeases;
  /**
   * Folders checked once (real folders, no symlinks) by this instance; cleared
   * when an operation finds a folder gone, so they are checked again.
   */
  readonly #verifiedDirs = new Set<string>();
  /** Open folder handles for flushing renames. */
  readonly #dirHandles = new DirHandles();
  /** Validated paths of recently used scopes. */
  readonly #pathCache = new Map<string, ScopePaths>();
  /** Scopes whose orphaned temporaries this instance has swept. */
  readonly #swept = new Set<string>();
  #closed = false;

  constructor(options: FileStoreOptions) {
    this.root = resolveStoreRoot(options.root);
    this.todoDir = join(this.root, TODO_FOLDER);
    this.#logLimit = positiveInteger("logLimit", options.logLimit, DEFAULT_LOG_LIMIT);
    this.#staleMs = positiveInteger("lockStaleMs", options.lockStaleMs, DEFAULT_LOCK_STALE_MS);
    this.#timeoutMs = positiveInteger(
      "lockTimeoutMs",
      options.lockTimeoutMs,
      DEFAULT_LOCK_TIMEOUT_MS,
    );
    this.#leases = new LockLeases(this.#owner, this.#staleMs);
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error("FileStore: the store is closed");
  }

  #paths(scope: Scope): ScopePaths {
    this.#assertOpen();
    const cacheable =
      typeof scope === "object" &&
      scope !== null &&
      typeof scope.key === "string" &&
      typeof scope.kind === "string";
    const cacheKey = cacheable ? `${scope.kind}\u0000${scope.key}` : "";
    const known = cacheable ? this.#pathCache.get(cacheKey) : undefined;
    if (known !== undefined) return known;
    // Validates the scope and re-checks containment; done once per scope.
    const paths = scopePaths(this.todoDir, scope);
    if (cacheable) {
      if (this.#pathCache.size >= PATH_CACHE_SIZE) this.#pathCache.clear();
      this.#pathCache.set(cacheKey, paths);
    }
    return paths;
  }

  async read(scope: Scope): Promise<ScopeSnapshot> {
    const paths = this.#paths(scope);
    if (!checkDirs(this.todoDir, paths.dirs, false, this.#verifiedDirs)) {
      return { todos: emptyList(), todosRevision: 0, state: emptyState(), stateRevision: 0 };
    }
    // Lock-free: each document is replaced atomically, so each reads whole.
    const todos = readDocument(paths.todos, false);
    const state = readDocument(paths.state, false);
    return {
      todos: readTodoList(todos),
      todosRevision: todos.revision,
      state: readState(state, markerPresent(paths.stop)).state,
      stateRevision: state.revision,
    };
  }

  /** True (once) when an error says a checked folder was removed meanwhile: check again. */
  #folderVanished(error: unknown, attempt: number): boolean {
    if (typeof error !== "object" || error === null) return false;
    const { code, syscall } = error as NodeJS.ErrnoException;
    if (code !== "ENOENT" || syscall === undefined || attempt > 1) return false;
    this.#verifiedDirs.clear();
    this.#dirHandles.closeAll();
    this.#leases.releaseAll();
    return true;
  }

  /** Removes what a holder that crashed mid-transaction may have left. */
  #cleanUpAfter(paths: ScopePaths, previous: LockRecord | null): void {
    if (previous === null || !/^[\w-]+$/.test(previous.tag)) return;
    for (const file of [paths.todos, paths.state, paths.log]) {
      removeIfPresent(tempPathFor(file, previous.tag));
    }
  }

  /**
   * Once per scope and store instance, under the lock: temporaries of writers
   * that died are removed even when their lock vanished without a takeover.
   * Each folder is listed for that at most once per `SWEEP_INTERVAL_MS`
   * (a marker file keeps the time), not by every process's first transaction.
   */
  #sweepOrphans(paths: ScopePaths): void {
    if (this.#swept.has(paths.lock)) return;
    if (this.#swept.size >= PATH_CACHE_SIZE) this.#swept.clear();
    this.#swept.add(paths.lock);
    removeOrphanedTemps([paths.todos, paths.state, paths.log], this.#owner.tag, this.#staleMs);
  }

  async #withLock<R>(scope: Scope, paths: ScopePaths, body: (lock: HeldLock) => R): Promise<R> {
    const arrival = Date.now();
    const deadline = arrival + this.#timeoutMs;
    const tag = this.#owner.tag;
    let delayMs = 1;
    let lost = 0;
    let missingDirRetries = 0;
    let waiting = false;
    for (;;) {
      this.#assertOpen();
      checkDirs(this.todoDir, paths.dirs, true, this.#verifiedDirs);
      let lock: HeldLock | null = null;
      try {
        if (someoneAhead(paths.lock, tag, arrival)) {
          // Someone has waited longer: a kept lease is handed over, not reused.
          this.#leases.release(paths.lock);
        } else {
          lock = this.#leases.acquire(paths.lock, (previous) =>
            this.#cleanUpAfter(paths, previous),
          );
        }
      } catch (error) {
        if (!this.#folderVanished(error, ++missingDirRetries)) throw error;
        continue;
      }
      if (lock !== null) {
        if (waiting) leaveQueue(paths.lock, tag);
        try {
          this.#sweepOrphans(paths);
          return body(lock);
        } catch (error) {
          if (error instanceof LockLostError && ++lost <= MAX_LOST_LOCK_RETRIES) {
            this.#leases.release(paths.lock);
            continue;
          }
          if (this.#folderVanished(error, ++missingDirRetries)) continue;
          throw error;
        }
      }
      if (Date.now() >= deadline) {
        const holder = lockHolder(paths.lock);
        throw new Error(
          `timed out after ${this.#timeoutMs} ms waiting for the lock of ${describeScope(scope)}` +
            (holder ? ` (held by pid ${holder.pid} on ${describeHost(holder)})` : ""),
        );
      }
      waiting = true;
      const head = announceWaiting(paths.lock, tag, arrival);
      // The head polls often so the lock is not left idle; the others only need
      // to keep their place fresh.
      await sleep(head ? 1 : delayMs * (0.5 + Math.random()));
      delayMs = Math.min(delayMs * 2, MAX_POLL_MS);
    }
  }

  #run<R>(
    paths: ScopePaths,
    lock: HeldLock,
    fn: (snapshot: ScopeSnapshot) => TransactionResult<R>,
  ): R {
    const todosDoc = readDocument(paths.todos);
    const stateDoc = readDocument(paths.state);
    const stopMarked = markerPresent(paths.stop);
    const todos = readTodoList(todosDoc);
    const stored = readState(stateDoc, stopMarked);
    const out = fn({
      todos,
      todosRevision: todosDoc.revision,
      state: stored.state,
      stateRevision: stateDoc.revision,
    });
    if (typeof out !== "object" || out === null) {
      throw new TypeError("transaction callback must return an object with a result field");
    }
    if (typeof (out as { then?: unknown }).then === "function") {
      throw new TypeError("transaction callback must be synchronous, it returned a promise");
    }
    const documents: DocumentWrite[] = [];
    if (out.todos !== undefined) {
      const text = serializeTodoList(
        checkTodoList(out.todos),
        nextRevision(paths.todos, todosDoc.revision),
      );
      documents.push({
        path: paths.todos,
        bytes: Buffer.from(text),
        previous: todosDoc,
        // A read that dropped anything keeps the original bytes before they are replaced.
        preserve: listLosesData(todosDoc, todos),
      });
    }
    // Entries are numbered after the log's last and the state's journal, which
    // goes into the state written now (or stays, when this write logs nothing).
    const log = checkLogEntries(out.log);
    let journal = stored.journal;
    let tail: LogTail | null = null;
    let appended: NumberedEntry[] = [];
    // An append the state's journal does not keep goes to the disk at once.
    let flushLog = true;
    if (log.length > 0) {
      tail = readLogTail(paths.log);
      const lastSeq = tail.lastSeq;
      const unlogged = journalEntries(journal).filter((line) => line.seq > lastSeq);
      const fresh = numberEntries(log, Math.max(lastSeq, journal?.seq ?? 0));
      appended = [...unlogged, ...fresh];
      const next = nextJournal(journal, lastSeq, fresh);
      journal = next.journal;
      flushLog = next.flush || out.state === undefined;
    }
    let stop = null;
    if (out.state !== undefined) {
      const state = checkState(out.state);
      const text = serializeState(state, nextRevision(paths.state, stateDoc.revision), journal);
      documents.push({
        path: paths.state,
        bytes: Buffer.from(text),
        previous: stateDoc,
        preserve: stored.damaged,
      });
      if (state.stopped !== stopMarked) stop = { path: paths.stop, present: state.stopped };
    }
    if (documents.length > 0 || tail !== null) {
      const logTail = tail;
      commitTransaction(
        {
          documents,
          prepareLog: () =>
            logTail === null
              ? null
              : prepareLogAppend(
                  paths.log,
                  logTail,
                  appended,
                  this.#logLimit,
                  this.#owner.tag,
                  this.#dirHandles,
                  flushLog,
                ),
          stop,
        },
        this.#owner.tag,
        () => assertStillHeld(lock),
        this.#dirHandles,
      );
    }
    return out.result;
  }

  async transact<R>(
    scope: Scope,
    fn: (snapshot: ScopeSnapshot) => TransactionResult<R>,
  ): Promise<R> {
    const paths = this.#paths(scope);
    return await this.#withLock(scope, paths, (lock) => this.#run(paths, lock, fn));
  }

  async listScopes(): Promise<Scope[]> {
    this.#assertOpen();
    return await listScopeKeysAsync(this.todoDir);
  }

  async readLog(scope: Scope, limit?: number): Promise<DecisionLogEntry[]> {
    const paths = this.#paths(scope);
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw new RangeError(`readLog: limit must be a non-negative integer, got ${limit}`);
    }
    if (!checkDirs(this.todoDir, paths.dirs, false, this.#verifiedDirs)) return [];
    // A decision whose state committed is logged, even if a crash kept its line out of the file.
    const { journal } = readState(readDocument(paths.state, false));
    return readLogEntries(
      paths.log,
      Math.min(limit ?? this.#logLimit, this.#logLimit),
      journalEntries(journal),
    );
  }

  async problems(scope: Scope): Promise<StoreProblem[]> {
    const paths = this.#paths(scope);
    if (!checkDirs(this.todoDir, paths.dirs, false, this.#verifiedDirs)) return [];
    // Copies are found by listing the folders asynchronously, each once for the three files.
    const copies = await preservedCopiesOf([paths.todos, paths.state, paths.log]);
    const todosRaw = readDocument(paths.todos, false);
    const stateRaw = readDocument(paths.state, false);
    return describeProblems({
      todosPath: paths.todos,
      todosRaw,
      todos: readTodoList(todosRaw),
      statePath: paths.state,
      stateRaw,
      state: readState(stateRaw),
      logPath: paths.log,
      logUnusable: logUnreadable(paths.log),
      preserved: (path) => copies.get(path) ?? [],
    });
  }

  scan(options: ScanOptions = {}): AsyncIterable<ScopeScan[]> {
    this.#assertOpen();
    checkScanOptions(options);
    // Named scopes (changes to follow): read by name, no folder indexed whole on the event loop.
    if (options.scopes !== undefined) {
      return scanNamedScopes(this.todoDir, options.scopes, options, this.#logLimit);
    }
    return scanFileStore(this.todoDir, options, this.#logLimit);
  }

  async deleteScope(scope: Scope): Promise<void> {
    const paths = this.#paths(scope);
    if (!checkDirs(this.todoDir, paths.dirs, false, this.#verifiedDirs)) return;
    await this.#withLock(scope, paths, (lock) => {
      assertStillHeld(lock);
      const files = [paths.todos, paths.state, paths.log];
      let removed = false;
      const extras = [
        paths.stop,
        waitPath(paths.lock),
        previousGeneration(paths.log),
        ...files.flatMap(preservedCopies),
      ];
      for (const file of [...files, ...extras]) {
        removed = removeIfPresent(file) || removed;
      }
      if (removed) syncDirsOf(files, this.#dirHandles);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#leases.releaseAll();
    this.#dirHandles.closeAll();
  }
}

/** Whether the scope's stop marker is there: anything under its name counts (fail closed). */
function markerPresent(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

/** Opens (lazily: nothing is touched until the first call) a store on plain files. */
export function createFileStore(options: FileStoreOptions = {}): FileStore {
  return new FileStoreImpl(options);
}
