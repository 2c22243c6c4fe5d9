#!/usr/bin/env node
import { randomBytes } from "node:crypto";
import {
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { readCache } from "./cache-record.js";
import { startWatch, type TreeWatch, watchScope } from "./watch.js";
import {
  exchangeFiles,
  fileProblem,
  folderProblem,
  isWatcher,
  questionNonce,
  watcherFiles,
} from "./watcher-paths.js";
import {
  formatAnswer,
  MAX_LINE,
  parseRequest,
  type WatchAnswer,
  type WatchRequest,
} from "./watcher-protocol.js";

/**
 * The shared watcher of one project (one verify cache file): a process that
 * hooks start detached, which keeps an inotify watch on the folders of the
 * cache's witness and tells hooks, through files in a folder of the user's
 * own, whether the watch they stamped saw nothing since. It reads only
 * the cache file it was started for and the question files addressed to it
 * (one bounded line each), runs nothing, and exits when nobody has
 * asked for `--idle-ms` or when the project folder is gone.
 */

/** A watch that turned dirty is restarted this long after the last event (an edit comes in bursts). */
const REWATCH_MS = 100;

function arg(name: string): string {
  const at = process.argv.indexOf(name);
  const value = at < 0 ? undefined : process.argv[at + 1];
  if (value === undefined) throw new Error(`watcher: ${name} is required`);
  return value;
}

const folder = arg("--folder");
const cacheFile = arg("--cache");
const idleMs = Number(arg("--idle-ms"));
const checkMs = Number(arg("--check-ms"));
const files = watcherFiles(folder, cacheFile);
const token = randomBytes(6).toString("hex");
let serial = 0;
let current: { watch: TreeWatch; id: string; scope: string } | null = null;
let ownPid = false;
let rewatchTimer: NodeJS.Timeout | undefined;
let idleTimer: NodeJS.Timeout | undefined;

function exit(): never {
  current?.watch.close();
  try {
    // Only our own pid file: a later watcher may already own the name.
    const [pid] = readFileSync(files.pid, "utf8").split("\n");
    if (ownPid && pid === String(process.pid)) rmSync(files.pid, { force: true });
  } catch {}
  process.exit(0);
}

let rewatching: Promise<void> | null = null;

/** Re-reads the cache's witness and watches it, unless the clean watch already covers it (one at a time). */
function rewatch(): Promise<void> {
  rewatching ??= rewatchNow().finally(() => {
    rewatching = null;
    // Deleted while the watch began (no event will come): the same check again.
    if (projectIno !== undefined && projectGone()) exit();
  });
  return rewatching;
}

/** The project folder (its inode at start): when it is gone or replaced, the watcher exits. */
let project = "";
let projectIno: number | undefined;

function projectGone(): boolean {
  return statSync(project, { throwIfNoEntry: false })?.ino !== projectIno;
}

async function rewatchNow(): Promise<void> {
  // A deleted project sends events to the watch first: exit at once, not at the next check.
  if (projectIno !== undefined && projectGone()) exit();
  const record = await readCache(cacheFile, null, null);
  const witness = record?.witness ?? null;
  if (record === null || witness === null) {
    current?.watch.close();
    current = null;
    return;
  }
  const scope = watchScope(witness);
  if (current !== null && !current.watch.dirty && current.scope === scope) return;
  current?.watch.close();
  const watch = startWatch(witness, record.fingerprint, soiled);
  serial += 1;
  current = watch === null ? null : { watch, id: `${token}-${serial}`, scope };
}

function soiled(): void {
  clearTimeout(rewatchTimer);
  rewatchTimer = setTimeout(() => void rewatch(), REWATCH_MS);
}

function answer(request: WatchRequest): WatchAnswer | Promise<WatchAnswer> {
  // Every event queued before the question was read before it (one inotify
  // queue, read in order): a dirty watch is dirty by now.
  const clean = current !== null && !current.watch.dirty;
  if (clean && current?.scope === request.scope && current.id === request.stamp) {
    return { state: "unchanged", id: current.id, scope: current.scope };
  }
  const after = (): WatchAnswer =>
    current === null
      ? { state: "unknown" }
      : { state: "changed", id: current.id, scope: current.scope };
  return !clean || current?.scope !== request.scope ? rewatch().then(after) : after();
}

/** Answers the question file `nonce`: one bounded line, our own regular file, or nothing. */
function reply(nonce: string): void {
  const ex = exchangeFiles(files, nonce);
  if (fileProblem(ex.question) !== null) return;
  let text: string;
  try {
    text = readFileSync(ex.question, "utf8");
  } catch {
    return;
  }
  const request = text.length > MAX_LINE ? null : parseRequest(text);
  if (request === null) return void rmSync(ex.question, { force: true });
  clearTimeout(idleTimer);
  idleTimer = setTimeout(exit, idleMs);
  const send = (a: WatchAnswer) => {
    try {
      writeFileSync(ex.draftAnswer, formatAnswer(a), { mode: 0o600 });
      renameSync(ex.draftAnswer, ex.answer);
    } catch {
      // The folder went away: the hook times out to its slow path.
    }
  };
  const a = answer(request);
  if (a instanceof Promise) void a.then(send);
  else send(a);
}

/** Question and answer files a hook left behind (it was killed while it waited). */
function sweep(): void {
  const prefix = `${files.key}.`;
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(prefix) || /\.(pid|start)$/.test(name)) continue;
    const path = join(folder, name);
    const age = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 10_000) rmSync(path, { force: true });
  }
}

/** Makes this process the one watcher of its key (the pid file, created exclusively); false when another is. */
function claimPid(project: string): boolean {
  const body = `${process.pid}\n${project}\n`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(files.pid, body, { flag: "wx", mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
    }
    const pid = Number(readFileSync(files.pid, "utf8").split("\n")[0]);
    if (pid > 0 && pid !== process.pid && isWatcher(pid)) return false;
    // A watcher that died: its pid file is ours to replace.
    rmSync(files.pid, { force: true });
  }
  return false;
}

async function main(): Promise<void> {
  if (folderProblem(folder) !== null || !(idleMs > 0) || !(checkMs > 0)) exit();
  const record = await readCache(cacheFile, null, null);
  project = record?.cwd ?? "";
  projectIno = statSync(project, { throwIfNoEntry: false })?.ino;
  if (record === null || projectIno === undefined || !claimPid(project)) {
    rmSync(files.start, { force: true });
    exit();
  }
  ownPid = true;
  // Questions first, then the tree's watch: both share one inotify queue.
  const questions = watch(folder, { persistent: true }, (_event, name) => {
    const nonce = name === null ? null : questionNonce(files.key, String(name));
    if (nonce !== null) reply(nonce);
  });
  questions.on("error", () => exit());
  await rewatch();
  rmSync(files.start, { force: true });
  idleTimer = setTimeout(exit, idleMs);
  // Questions that arrived before the watch on the folder began.
  for (const name of readdirSync(folder)) {
    const nonce = questionNonce(files.key, name);
    if (nonce !== null) reply(nonce);
  }
  setInterval(() => {
    if (projectGone()) exit();
    if (folderProblem(folder) !== null) exit();
    sweep();
  }, checkMs);
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, exit);
}

main().catch(() => exit());
