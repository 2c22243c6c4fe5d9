import { lstatSync } from "node:fs";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { emptyState } from "../../core/engine/state.js";
import { emptyList } from "../../core/todo/model.js";
import type { ScanOptions, Scope, ScopeScan } from "../../core/types.js";
import { DEFAULT_SCAN_BATCH, tailOf, uniqueScopes } from "../scan.js";
import { readDocument } from "./documents.js";
import { readLogTail } from "./log-tail.js";
import { checkDirs, type ScopePaths, scopePaths } from "./paths.js";
import { MarkedNames } from "./preserve.js";
import { scannedScope } from "./scan.js";

/**
 * The file store's scan of named scopes (changed ones, as a dashboard
 * re-reads them): each scope's own files are read by name, and only the
 * preserved copies need a folder's names, listed asynchronously once per
 * folder for the whole scan (only names holding the copy mark are kept).
 * Nothing builds an index of whole folders on the event loop, so re-reading
 * one scope of a folder of tens of thousands of files costs about what that
 * scope's files cost. Reading goes in slices of at most `SLICE_MS` with the
 * event loop turning between them. The answers are the full scan's.
 */
/** Longest stretch of synchronous reading before the event loop gets a turn. */
const SLICE_MS = 8;

export async function* scanNamedScopes(
  todoDir: string,
  scopes: readonly Scope[],
  options: ScanOptions,
  logLimit: number,
): AsyncGenerator<ScopeScan[]> {
  const unique = uniqueScopes(scopes);
  const size = options.batchSize ?? DEFAULT_SCAN_BATCH;
  const verified = new Set<string>();
  const marked = new MarkedNames();
  for (let start = 0; start < unique.length; start += size) {
    options.signal?.throwIfAborted();
    const batch = unique.slice(start, start + size);
    const paths = batch.map((scope) => pathsOf(todoDir, scope));
    const present = paths.map((p) =>
      p instanceof Error ? false : checkDirsSafely(todoDir, p, verified),
    );
    const wanted = paths.flatMap((p, i) =>
      p instanceof Error || present[i] !== true ? [] : [p.todos, p.state, p.log],
    );
    let copies: Map<string, string[]> | Error;
    try {
      copies = await marked.copiesOf(wanted);
    } catch (error) {
      copies = asError(error);
    }
    options.signal?.throwIfAborted();
    const out: ScopeScan[] = [];
    let sliceStart = performance.now();
    for (const [i, scope] of batch.entries()) {
      if (performance.now() - sliceStart >= SLICE_MS) {
        await yieldToLoop();
        options.signal?.throwIfAborted();
        sliceStart = performance.now();
      }
      const scopePaths = paths[i]!;
      const dirs = present[i]!;
      if (scopePaths instanceof Error) out.push({ scope, ok: false, error: scopePaths });
      else if (dirs instanceof Error) out.push({ scope, ok: false, error: dirs });
      else if (!dirs) out.push(absent(scope));
      else if (copies instanceof Error) out.push({ scope, ok: false, error: copies });
      else out.push(readOne(scope, scopePaths, copies, options, logLimit));
    }
    yield out;
  }
}

function pathsOf(todoDir: string, scope: Scope): ScopePaths | Error {
  try {
    return scopePaths(todoDir, scope);
  } catch (error) {
    return asError(error);
  }
}

function checkDirsSafely(todoDir: string, paths: ScopePaths, verified: Set<string>) {
  try {
    return checkDirs(todoDir, paths.dirs, false, verified);
  } catch (error) {
    return asError(error);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** A scope whose folders do not exist: nothing stored. */
function absent(scope: Scope): ScopeScan {
  return {
    scope,
    ok: true,
    snapshot: { todos: emptyList(), todosRevision: 0, state: emptyState(), stateRevision: 0 },
    log: [],
    problems: [],
    exists: false,
  };
}

function readOne(
  scope: Scope,
  paths: ScopePaths,
  copies: Map<string, string[]>,
  options: ScanOptions,
  logLimit: number,
): ScopeScan {
  try {
    const tail = Math.min(tailOf(options, scope), logLimit);
    const todosRaw = readDocument(paths.todos, false);
    const stateRaw = readDocument(paths.state, false);
    const stopped = lstatSync(paths.stop, { throwIfNoEntry: false }) !== undefined;
    // Only the log's end is read, as the full scan reads it.
    const log = readLogTail(paths.log, tail);
    return scannedScope(
      scope,
      paths,
      { todosRaw, stateRaw, stopped, log },
      (path) => copies.get(path) ?? [],
    );
  } catch (error) {
    return { scope, ok: false, error: asError(error) };
  }
}
