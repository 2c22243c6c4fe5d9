import { join, sep } from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { emptyState } from "../../core/engine/state.js";
import { emptyList } from "../../core/todo/model.js";
import type { DecisionLogEntry, ScanOptions, Scope, ScopeScan } from "../../core/types.js";
import { DEFAULT_SCAN_BATCH, tailOf, uniqueScopes } from "../scan.js";
import {
  parseDocumentText,
  type RawDocument,
  readDocument,
  readState,
  readTodoList,
} from "./documents.js";
import { FolderIndex } from "./folder-index.js";
import { entries, listScopeKeys } from "./list.js";
import { readLogTail } from "./log-tail.js";
import {
  checkDirs,
  checkedScopePaths,
  type ScopePaths,
  STATE_FOLDER,
  scopePaths,
} from "./paths.js";
import { copiesAmong } from "./preserve.js";
import { describeProblems } from "./problems.js";

/** Longest stretch of synchronous reading before the event loop gets a turn. */
const SLICE_MS = 8;

const MISSING = parseDocumentText(null);

/**
 * The file store's scan: every folder of the store is read once for the
 * whole scan (a listing of the folder, not one per scope), then each scope's
 * list, state and log are read at most once, skipping files the listing shows
 * absent. Reading goes in slices of at most `SLICE_MS`, with the event loop
 * turning between slices, and only the current batch is held.
 */
export async function* scanFileStore(
  todoDir: string,
  options: ScanOptions,
  logLimit: number,
): AsyncGenerator<ScopeScan[]> {
  const index = new FolderIndex();
  let scopes: Scope[];
  // Listed scopes were made by parseScopeKey from file names here; given ones are checked.
  const listed = options.scopes === undefined;
  if (options.scopes === undefined) {
    await index.loadTree(todoDir, join(todoDir, STATE_FOLDER));
    scopes = listScopeKeys(todoDir, (dir) => index.loaded(dir) ?? entries(dir));
  } else {
    scopes = uniqueScopes(options.scopes);
  }
  const verified = new Set<string>();
  const size = options.batchSize ?? DEFAULT_SCAN_BATCH;
  for (let start = 0; start < scopes.length; start += size) {
    options.signal?.throwIfAborted();
    const batch = scopes.slice(start, start + size);
    // Paths are built (and the scope checked) once per scope; a refused scope gets its error.
    const paths = batch.map((scope) => pathsOf(todoDir, scope, listed));
    await index.load(
      paths.flatMap((p) => (p instanceof Error ? [] : [folderOf(p.todos), folderOf(p.state)])),
    );
    const out: ScopeScan[] = [];
    let sliceStart = performance.now();
    for (const [i, scope] of batch.entries()) {
      const scopePaths = paths[i]!;
      out.push(
        scopePaths instanceof Error
          ? { scope, ok: false, error: scopePaths }
          : scanOne(todoDir, scope, scopePaths, index, verified, options, logLimit),
      );
      if (performance.now() - sliceStart >= SLICE_MS) {
        await yieldToLoop();
        options.signal?.throwIfAborted();
        sliceStart = performance.now();
      }
    }
    yield out;
  }
}

/** A scope's paths, or why the store refuses the scope. */
function pathsOf(todoDir: string, scope: Scope, listed: boolean): ScopePaths | Error {
  try {
    return listed ? checkedScopePaths(todoDir, scope) : scopePaths(todoDir, scope);
  } catch (error) {
    return asError(error);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** A scope's documents as a scan read them; the log is its newest entries already. */
export interface ScannedFiles {
  todosRaw: RawDocument;
  stateRaw: RawDocument;
  stopped: boolean;
  log: DecisionLogEntry[] | "unusable" | null;
}

/** What a scan answers for one scope from its files as read (the full and the named scan share it). */
export function scannedScope(
  scope: Scope,
  paths: ScopePaths,
  files: ScannedFiles,
  preserved: (path: string) => string[],
): ScopeScan {
  const { todosRaw, stateRaw, stopped, log } = files;
  const todos = readTodoList(todosRaw);
  const stored = readState(stateRaw, stopped);
  const problems = describeProblems({
    todosPath: paths.todos,
    todosRaw,
    todos,
    statePath: paths.state,
    stateRaw,
    state: stored,
    logPath: paths.log,
    logUnusable: log === "unusable",
    preserved,
  });
  return {
    scope,
    ok: true,
    snapshot: {
      todos,
      todosRevision: todosRaw.revision,
      state: stored.state,
      stateRevision: stateRaw.revision,
    },
    log: log === null || log === "unusable" ? [] : log,
    problems,
    exists:
      todosRaw.exists ||
      stateRaw.exists ||
      log !== null ||
      stopped ||
      problems.some((p) => p.preserved.length > 0),
  };
}

function scanOne(
  todoDir: string,
  scope: Scope,
  paths: ScopePaths,
  index: FolderIndex,
  verified: Set<string>,
  options: ScanOptions,
  logLimit: number,
): ScopeScan {
  try {
    const tail = Math.min(tailOf(options, scope), logLimit);
    if (!checkDirs(todoDir, paths.dirs, false, verified)) {
      return {
        scope,
        ok: true,
        snapshot: { todos: emptyList(), todosRevision: 0, state: emptyState(), stateRevision: 0 },
        log: [],
        problems: [],
        exists: false,
      };
    }
    const present = (path: string) => index.has(folderOf(path), nameOf(path));
    const todosRaw = present(paths.todos) ? readDocument(paths.todos, false) : MISSING;
    const stateRaw = present(paths.state) ? readDocument(paths.state, false) : MISSING;
    const stopped = present(paths.stop);
    // Only the log's end is read: a listing wants its newest entries, not all 64 MB it may hold.
    const log = present(paths.log) ? readLogTail(paths.log, tail) : null;
    const preserved = (path: string) =>
      copiesAmong(path, index.copyCandidates(folderOf(path), nameOf(path)));
    return scannedScope(scope, paths, { todosRaw, stateRaw, stopped, log }, preserved);
  } catch (error) {
    return { scope, ok: false, error: asError(error) };
  }
}

/** The folder holding `path` (paths here are built by `scopePaths`, so absolute and normalized). */
function folderOf(path: string): string {
  const at = path.lastIndexOf(sep);
  return at === 0 ? sep : path.slice(0, at);
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf(sep) + 1);
}
