import { type FSWatcher, watch as fsWatch, mkdirSync } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import { basename, join, sep } from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { parseScopeKey } from "../../core/scope/scope.js";
import { STATE_FOLDER } from "./paths.js";

/** Which scopes changed: their keys, or "all" when changes may have been missed. */
export type ScopeChanges = string[] | "all";

/** How the watch follows the store: folder events, or a periodic rescan after the watch failed. */
export type WatchStatus =
  | { mode: "watching" }
  | { mode: "polling"; everyMs: number; reason: string };

/** Longest stretch of synchronous work on a folder's names before the event loop gets a turn. */
const SLICE_MS = 8;

/** The documents a scope owns, by the ending after its key. */
const BASES = [".json", ".log.jsonl", ".lock", ".stop"] as const;

/**
 * What may follow a document's name: nothing, a rotated log generation (`.1`), a lock's wait
 * file or steal guard, or a preserved copy (`.corrupt.<n>-<13-digit ms>`, and the older
 * `.corrupt` and `.corrupt-<13-digit ms>[-<n>]`).
 */
const TAIL = /^(?:|\.1|\.wait|\.steal|\.corrupt(?:\.\d{1,15}-\d{13}|-\d{13}(?:-\d+)?)?)$/;

/**
 * The scope a changed file belongs to, "transient" for files that change no
 * document (temporaries, the lock itself, its steal guard), or null for a name
 * that is no scope's (a folder, a file added by hand).
 */
export function scopeKeyOfFile(relative: string): string | "transient" | null {
  let name = sep === "/" ? relative : relative.split(sep).join("/");
  if (name.startsWith(`${STATE_FOLDER}/`)) name = name.slice(STATE_FOLDER.length + 1);
  if (name.endsWith(".tmp")) return "transient";
  // A document's own name (no tail): the only place its key can end, since no tail ends like a
  // base does. Anything else is searched dot by dot below.
  for (const base of BASES) {
    if (!name.endsWith(base)) continue;
    const scope = parseScopeKey(name.slice(0, -base.length));
    if (scope !== null) return base === ".lock" ? "transient" : scope.key;
  }
  for (let dot = name.indexOf("."); dot > 0; dot = name.indexOf(".", dot + 1)) {
    for (const base of BASES) {
      if (!name.startsWith(base, dot)) continue;
      const tail = name.slice(dot + base.length);
      if (!TAIL.test(tail)) continue;
      const scope = parseScopeKey(name.slice(0, dot));
      if (scope === null) continue;
      return base === ".lock" && (tail === "" || tail === ".steal") ? "transient" : scope.key;
    }
  }
  return null;
}

export interface WatchOptions {
  /** Changes are reported in batches, at most this often: a transaction touches several files. */
  settleMs?: number;
  /**
   * How often the store is rescanned once the folder watch has failed, and how often the todo
   * folder itself is looked at while the watch works (one lstat).
   */
  pollMs?: number;
  /**
   * How often the watch checks itself against a rescan even while it works: a change the
   * events never reported (a lost event, a kernel queue overflow) switches it to polling.
   * 0 turns the check off.
   */
  auditMs?: number;
  /** Called when the way of following changes (watching, or polling and why). */
  onStatus?: (status: WatchStatus) => void;
  /** The folder watch to use (tests pass one that fails). */
  watch?: typeof fsWatch;
}

export interface FileStoreWatch {
  /** Settles once every folder there is is watched: writes from then on are reported. */
  readonly ready: Promise<void>;
  status(): WatchStatus;
  close(): void;
}

/** Files stat'ed at once by a rescan. */
const STAT_CONCURRENCY = 32;

/** A rescan's picture: each scope document's identity and version, by its path. */
type Snapshot = Map<string, string>;

function errorText(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e?.code ? `${e.code}: ${e.message}` : String(error);
}

/** Every folder a scope's files can sit in: the todo folder, its state folder, one level under each. */
async function scopeFolders(todoDir: string): Promise<string[]> {
  const folders: string[] = [];
  for (const base of ["", STATE_FOLDER]) {
    const entries = await readdir(join(todoDir, base), { withFileTypes: true }).catch(() => null);
    if (entries === null) continue;
    folders.push(base);
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith(".")) {
        folders.push(base === "" ? entry.name : `${base}/${entry.name}`);
      }
    }
  }
  return folders;
}

/** Stats every scope document under `todoDir` (asynchronously, a bounded number at once). */
export async function snapshotStore(todoDir: string): Promise<Snapshot> {
  const files: string[] = [];
  for (const folder of await scopeFolders(todoDir)) {
    const names = await readdir(join(todoDir, folder)).catch(() => [] as string[]);
    for (const name of names) {
      const rel = folder === "" ? name : `${folder}/${name}`;
      const key = scopeKeyOfFile(rel);
      if (key !== null && key !== "transient") files.push(rel);
    }
  }
  const snapshot: Snapshot = new Map();
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const rel = files[next++]!;
      const info = await stat(join(todoDir, rel)).catch(() => null);
      if (info?.isFile()) snapshot.set(rel, `${info.ino}:${info.size}:${info.mtimeMs}`);
    }
  };
  await Promise.all(Array.from({ length: STAT_CONCURRENCY }, worker));
  return snapshot;
}

/** The scopes whose documents differ between two rescans. */
export function changedScopes(before: Snapshot, after: Snapshot): string[] {
  const keys = new Set<string>();
  for (const [rel, version] of after) if (before.get(rel) !== version) keys.add(rel);
  for (const rel of before.keys()) if (!after.has(rel)) keys.add(rel);
  return [...keys].map((rel) => scopeKeyOfFile(rel) as string);
}

/**
 * Follows a file store's todo folder and reports changed scopes in batches.
 *
 * It watches folders, not files, each on its own (not Node's recursive watch:
 * on Linux that stops reporting a file once a rename has replaced it, which is
 * how the store writes every document). Folders created later are watched as
 * they appear and scanned once, so files written before the watch took hold
 * are not missed; a removed folder reports the scopes it held. When a watch
 * cannot be set up or fails, it falls back to rescanning the folder every
 * `pollMs` and says so through `onStatus`.
 */
export function watchFileStore(
  todoDir: string,
  onChange: (changes: ScopeChanges) => void,
  options: WatchOptions = {},
): FileStoreWatch {
  const settleMs = options.settleMs ?? 50;
  const pollMs = options.pollMs ?? 2_000;
  const auditMs = options.auditMs ?? 30_000;
  const watchFolder = options.watch ?? fsWatch;
  mkdirSync(todoDir, { recursive: true });

  const watchers = new Map<string, FSWatcher>();
  /** The inode of each watched folder, to tell a folder removed and made again from the same one. */
  const inodes = new Map<string, number>();
  /** Scopes seen in each folder, to report when the folder goes. */
  const seen = new Map<string, Set<string>>();
  let status: WatchStatus = { mode: "watching" };
  let pending: Set<string> | "all" | null = null;
  let flushTimer: NodeJS.Timeout | null = null;
  let pollTimer: NodeJS.Timeout | null = null;
  let auditTimer: NodeJS.Timeout | null = null;
  let rootTimer: NodeJS.Timeout | null = null;
  let closed = false;
  /** Keys the events reported since the last audit began, to tell a missed change from a seen one. */
  let reportedSinceAudit = new Set<string>();

  const flush = () => {
    flushTimer = null;
    const batch = pending;
    pending = null;
    if (batch !== null && !closed) onChange(batch === "all" ? "all" : [...batch]);
  };
  const report = (keys: Iterable<string> | "all") => {
    if (keys === "all") pending = "all";
    else {
      for (const key of keys) {
        reportedSinceAudit.add(key);
        if (pending === "all") continue;
        pending ??= new Set();
        pending.add(key);
      }
      if (pending === null) return;
    }
    flushTimer ??= setTimeout(flush, settleMs);
  };
  const remember = (folder: string, key: string) => {
    let keys = seen.get(folder);
    if (keys === undefined) {
      keys = new Set();
      seen.set(folder, keys);
    }
    keys.add(key);
  };

  const setStatus = (next: WatchStatus) => {
    status = next;
    options.onStatus?.(next);
  };

  /** Stops watching `folder` (and, for a base folder, everything under it); reports what it held. */
  const drop = (folder: string) => {
    const lost: string[] = [];
    for (const [name, watcher] of [...watchers]) {
      if (name !== folder && !name.startsWith(`${folder}/`) && folder !== "") continue;
      watcher.close();
      watchers.delete(name);
      inodes.delete(name);
    }
    for (const [name, keys] of [...seen]) {
      if (name !== folder && !name.startsWith(`${folder}/`) && folder !== "") continue;
      lost.push(...keys);
      seen.delete(name);
    }
    report(lost);
  };

  /**
   * Watches `folder` and reports every scope already in it (written before the watch began),
   * except while `quiet`: at the start, what is there is the caller's first read.
   */
  let quiet = true;
  const attach = async (folder: string): Promise<void> => {
    if (closed || watchers.has(folder)) return;
    const path = join(todoDir, folder);
    let watcher: FSWatcher;
    try {
      watcher = watchFolder(path, { persistent: false }, (_event, filename) => {
        onEvent(folder, filename === null ? null : filename.toString());
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      fail(`could not watch ${path} (${errorText(error)})`);
      return;
    }
    watcher.on("error", (error) => {
      watchers.delete(folder);
      watcher.close();
      if (folder === "") fail(`the watch of ${todoDir} failed (${errorText(error)})`);
      else void recheck(folder);
    });
    watchers.set(folder, watcher);
    const info = await lstat(path).catch(() => null);
    if (info !== null) inodes.set(folder, info.ino);
    const entries = await readdir(path, { withFileTypes: true }).catch(() => null);
    if (entries === null) return void recheck(folder);
    const found: string[] = [];
    let sliceStart = performance.now();
    for (const [i, entry] of entries.entries()) {
      // A folder of tens of thousands of files is taken in slices, the event loop turning between.
      if (i % 256 === 255 && performance.now() - sliceStart >= SLICE_MS) {
        await yieldToLoop();
        if (closed) return;
        sliceStart = performance.now();
      }
      const rel = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (holdsScopeFolder(folder, entry.name)) await attach(rel);
        continue;
      }
      const key = scopeKeyOfFile(rel);
      if (key === null || key === "transient") continue;
      remember(folder, key);
      found.push(key);
    }
    if (!quiet) report(found);
  };

  /** A folder changed in a way a name alone cannot tell: watch it if it is there, drop it if not. */
  const recheck = async (folder: string): Promise<void> => {
    const info = await lstat(join(todoDir, folder)).catch(() => null);
    if (closed) return;
    if (info?.isDirectory()) {
      if (watchers.has(folder) && inodes.get(folder) === info.ino) return;
      // Made again under the same name: the old watch follows nothing any more.
      drop(folder);
      await attach(folder);
      return;
    }
    drop(folder);
    // The todo folder's own removal is not always reported: a folder gone inside it may be the sign.
    if (folder === "" || !(await lstat(todoDir).catch(() => null))?.isDirectory()) {
      fail(`${todoDir} was removed`, true);
    }
  };

  const onEvent = (folder: string, filename: string | null) => {
    if (closed || status.mode !== "watching") return;
    if (filename === null) {
      void rescanFolder(folder);
      return;
    }
    const rel = folder === "" ? filename : `${folder}/${filename}`;
    const key = scopeKeyOfFile(rel);
    if (key === "transient") return;
    if (key !== null) {
      remember(folder, key);
      report([key]);
      return;
    }
    // A watched folder's own name: it may have been removed (Linux reports that on the folder).
    if (filename === basename(join(todoDir, folder))) void recheck(folder);
    if (holdsScopeFolder(folder, filename)) void recheck(rel);
  };

  /** Every scope in one folder, for an event that did not name its file. */
  const rescanFolder = async (folder: string) => {
    const names = await readdir(join(todoDir, folder)).catch(() => [] as string[]);
    const keys = new Set(seen.get(folder));
    for (const name of names) {
      const key = scopeKeyOfFile(folder === "" ? name : `${folder}/${name}`);
      if (key !== null && key !== "transient") keys.add(key);
    }
    report(keys);
  };

  let snapshot: Snapshot | null = null;
  /** Set when the todo folder was removed: once it is back, folder events are used again. */
  let watchAgain = false;
  /** Rescans and reports what changed since the last rescan (everything, the first time). */
  const poll = async () => {
    pollTimer = null;
    if (closed) return;
    if (watchAgain && (await lstat(todoDir).catch(() => null))?.isDirectory()) {
      watchAgain = false;
      snapshot = null;
      setStatus({ mode: "watching" });
      await attach("");
      if (status.mode === "watching") {
        startAudit();
        return;
      }
    }
    const next = await snapshotStore(todoDir).catch(() => null);
    if (closed) return;
    if (next !== null) {
      report(snapshot === null ? "all" : changedScopes(snapshot, next));
      snapshot = next;
    }
    pollTimer = setTimeout(() => void poll(), pollMs);
    pollTimer.unref();
  };

  /** Gives up on events: everything is rescanned every `pollMs` until the watch can resume. */
  const fail = (reason: string, resumable = false) => {
    if (closed || status.mode === "polling") return;
    for (const watcher of watchers.values()) watcher.close();
    watchers.clear();
    inodes.clear();
    seen.clear();
    if (auditTimer !== null) clearTimeout(auditTimer);
    if (rootTimer !== null) clearTimeout(rootTimer);
    auditTimer = null;
    rootTimer = null;
    watchAgain = resumable;
    setStatus({ mode: "polling", everyMs: pollMs, reason });
    void poll();
  };

  /**
   * Compares a rescan with what the events reported since the previous one: a change no event
   * told of means the watch is losing events (a queue overflow, a kernel limit), so poll instead.
   */
  let auditBase: Snapshot | null = null;
  const audit = async () => {
    auditTimer = null;
    if (closed || status.mode !== "watching") return;
    const reported = reportedSinceAudit;
    reportedSinceAudit = new Set();
    const next = await snapshotStore(todoDir).catch(() => null);
    if (closed || status.mode !== "watching") return;
    // Events for the last changes may still be on their way.
    await new Promise((resolve) => setTimeout(resolve, settleMs * 2 + 50));
    if (next !== null && auditBase !== null) {
      const missed = changedScopes(auditBase, next).filter(
        (key) => !reported.has(key) && !reportedSinceAudit.has(key),
      );
      if (missed.length > 0) {
        fail(`the folder watch missed changes to ${missed.length} scope(s)`);
        return;
      }
    }
    auditBase = next;
    auditTimer = setTimeout(() => void audit(), auditMs);
    auditTimer.unref();
  };

  /**
   * Looks at the todo folder itself every `pollMs` while watching. Its removal is reported by an
   * event only once nothing holds the folder open any more (an open handle anywhere, a scan in
   * flight, defers it, sometimes for good), and a removal that is still under way when its
   * subfolders' events are read looks like no removal at all. One lstat every `pollMs` settles it.
   */
  const guardRoot = async () => {
    rootTimer = null;
    if (closed || status.mode !== "watching") return;
    const info = await lstat(todoDir).catch(() => null);
    if (closed || status.mode !== "watching") return;
    const known = inodes.get("");
    if (!info?.isDirectory() || (known !== undefined && info.ino !== known)) await recheck("");
    if (closed || status.mode !== "watching") return;
    rootTimer = setTimeout(() => void guardRoot(), pollMs);
    rootTimer.unref();
  };

  const startAudit = () => {
    if (closed || status.mode !== "watching") return;
    if (rootTimer === null) {
      rootTimer = setTimeout(() => void guardRoot(), pollMs);
      rootTimer.unref();
    }
    if (auditMs <= 0) return;
    auditBase = null;
    auditTimer = setTimeout(() => void audit(), auditMs);
    auditTimer.unref();
  };

  const ready = attach("").then(() => {
    quiet = false;
    startAudit();
  });

  return {
    ready,
    status: () => status,
    close() {
      closed = true;
      for (const timer of [flushTimer, pollTimer, auditTimer, rootTimer])
        if (timer !== null) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

/** Whether `name` in `folder` is a folder scopes' files sit in: the state folder, or a kind's. */
function holdsScopeFolder(folder: string, name: string): boolean {
  if (folder === "") return name === STATE_FOLDER || !name.startsWith(".");
  return folder === STATE_FOLDER && !name.startsWith(".");
}
