#!/usr/bin/env node
import { randomBytes } from "node:crypto";
import { chmodSync, lstatSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type Socket } from "node:net";
import { setImmediate as nextTurn } from "node:timers/promises";
import { readCache } from "./cache-record.js";
import { startWatch, type TreeWatch, watchScope } from "./watch.js";
import { folderProblem, socketProblem, watcherFiles } from "./watcher-paths.js";
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
 * cache's witness and tells hooks, over a Unix socket in a folder of the
 * user's own, whether the watch they stamped saw nothing since. It reads only
 * the cache file it was started for, runs nothing, and exits when nobody has
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
let socketIno = -1;
let rewatchTimer: NodeJS.Timeout | undefined;
let idleTimer: NodeJS.Timeout | undefined;

function exit(): never {
  current?.watch.close();
  try {
    // Only our own socket and pid file: a later watcher may already own the names.
    if (lstatSync(files.socket).ino === socketIno) rmSync(files.socket, { force: true });
  } catch {}
  try {
    const [pid] = readFileSync(files.pid, "utf8").split("\n");
    if (pid === String(process.pid)) rmSync(files.pid, { force: true });
  } catch {}
  process.exit(0);
}

let rewatching: Promise<void> | null = null;

/** Re-reads the cache's witness and watches it, unless the clean watch already covers it (one at a time). */
function rewatch(): Promise<void> {
  rewatching ??= rewatchNow().finally(() => {
    rewatching = null;
  });
  return rewatching;
}

async function rewatchNow(): Promise<void> {
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

async function answer(request: WatchRequest): Promise<WatchAnswer> {
  // Events the kernel queued before the request are read first: two turns of
  // the loop pass through libuv's poll phase, which reads inotify to its end.
  await nextTurn();
  await nextTurn();
  const clean = current !== null && !current.watch.dirty;
  if (clean && current?.scope === request.scope && current.id === request.stamp) {
    return { state: "unchanged", id: current.id, scope: current.scope };
  }
  if (!clean || current?.scope !== request.scope) await rewatch();
  if (current === null) return { state: "unknown" };
  return { state: "changed", id: current.id, scope: current.scope };
}

function serve(conn: Socket): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(exit, idleMs);
  conn.setTimeout(1_000, () => conn.destroy());
  conn.on("error", () => {});
  conn.setEncoding("utf8");
  let text = "";
  let asked = false;
  conn.on("data", (chunk: string) => {
    text += chunk;
    if (text.length > MAX_LINE) return void conn.destroy();
    if (asked || !text.includes("\n")) return;
    asked = true;
    const request = parseRequest(text.slice(0, text.indexOf("\n") + 1));
    if (request === null) return void conn.destroy();
    void answer(request).then((a) => conn.end(formatAnswer(a)));
  });
}

/** True when a watcher already answers on the socket. */
function listening(): Promise<boolean> {
  return new Promise((resolve) => {
    const conn = createConnection(files.socket);
    conn.on("connect", () => {
      conn.destroy();
      resolve(true);
    });
    conn.on("error", () => resolve(false));
  });
}

async function main(): Promise<void> {
  if (folderProblem(folder) !== null || !(idleMs > 0) || !(checkMs > 0)) exit();
  const record = await readCache(cacheFile, null, null);
  if (record === null) {
    rmSync(files.start, { force: true });
    exit();
  }
  const project = record.cwd;
  const projectIno = statSync(project, { throwIfNoEntry: false })?.ino;
  if (projectIno === undefined || (await listening())) {
    rmSync(files.start, { force: true });
    exit();
  }
  // A socket file left by a watcher that died (nobody listens): ours now.
  if (socketProblem(files.socket) === null) rmSync(files.socket, { force: true });
  const server = createServer(serve);
  server.on("error", () => exit());
  await rewatch();
  server.listen(files.socket, () => {
    chmodSync(files.socket, 0o600);
    socketIno = lstatSync(files.socket).ino;
    writeFileSync(files.pid, `${process.pid}\n${project}\n`, { mode: 0o600 });
    rmSync(files.start, { force: true });
    idleTimer = setTimeout(exit, idleMs);
  });
  setInterval(() => {
    if (statSync(project, { throwIfNoEntry: false })?.ino !== projectIno) exit();
  }, checkMs);
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, exit);
}

main().catch(() => exit());
