#!/usr/bin/env node
import {
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { FLUSH_BESIDE, RESIDENT } from "../../../core/resident.js";
import { type HookIo, textStream } from "../process.js";
import { openAfterAnswer, runAfterAnswer } from "./after-answer.js";
import { startFlushHelper } from "./flush-helper.js";
import { collectBetweenEvents } from "./gc-between-events.js";
import { bundleFilesOf, HostBundles } from "./host-bundles.js";
import {
  DEFAULT_IDLE_MS,
  exchangeFiles,
  liveServer,
  questionNonce,
  serverFiles,
  serverFolderProblem,
} from "./server-files.js";
import {
  formatAnswer,
  MAX_QUESTION_BYTES,
  parseQuestion,
  type ServerAnswer,
  type ServerQuestion,
} from "./server-protocol.js";

/**
 * The resident hook server: a process that hooks start detached, which runs
 * their events so a hook process only hands one over and prints the answer
 * (a new process's loading and first run of the bundle are most of a hook's
 * cost). One event at a time, each as its own process would have run it: the
 * event's environment, working folder and umask are this process's while it
 * runs, on the one set of the host bundle's modules that every event of the
 * host runs on, whose per-event state is forgotten before each
 * (`core/per-event.ts`; a set whose event threw is dropped). A question
 * waiting while another event runs (a project's check can take minutes) is
 * withdrawn by its hook, which runs it itself. The server exits when nobody
 * has asked for a while, when its folder or its package is gone or changed,
 * and when an event leaves anything running behind it.
 */

const [folder = "", hookDir = "", idleArg = ""] = process.argv.slice(2);
const files = serverFiles(folder, hookDir, process.env);
/** How long the server waits for an event before it exits (the starting hook's `SERVER_IDLE_ENV`). */
const IDLE_MS = Number(idleArg) > 0 ? Number(idleArg) : DEFAULT_IDLE_MS;
/** How often the folder, the package and the pid file are looked at. */
const CHECK_MS = 2_000;
/** Files of ours older than this are a hook's leftovers (it was killed while it waited). */
const STALE_MS = 60_000;
/** A server that ran this many events makes way for a new one (memory V8 keeps for code). */
const MAX_EVENTS = 5_000;
/** How long after an answer the garbage is collected (a hook exits meanwhile). */
const PREPARE_DELAY_MS = 15;
/** How long an event's leftovers (timers, children, file calls) may run on before the server retires. */
const LEFTOVER_MS = 2_000;

let ownPid = false;
let retiring = false;
let events = 0;
let idleTimer: NodeJS.Timeout | undefined;
let checkTimer: NodeJS.Timeout | undefined;
let questions: ReturnType<typeof watch> | undefined;

function dropPid(): void {
  try {
    if (ownPid && readFileSync(files.pid, "utf8").split("\n")[0] === String(process.pid)) {
      rmSync(files.pid, { force: true });
    }
  } catch {}
  ownPid = false;
}

function exit(): never {
  dropPid();
  process.exit(0);
}

/**
 * Stops taking questions (the pid file goes first, so no hook hands one over)
 * and exits once the last event's leftovers are done.
 */
function retire(): void {
  if (retiring) return;
  retiring = true;
  dropPid();
  questions?.close();
  clearTimeout(idleTimer);
  clearInterval(checkTimer);
  setTimeout(() => process.exit(0), 60_000).unref();
}

const bundles = new HostBundles(bundleFilesOf(hookDir));

/** Readies the server for the next event, off the path a hook waits on. */
function prepare(): void {
  if (retiring) return;
  rememberEnv();
  collectBetweenEvents();
}

/**
 * What `process.env` held when last looked at, as a plain object: each read of `process.env`
 * is a call into Node (a whole environment costs 0.2 ms), so an event's environment is set
 * against this copy, taken between events (`prepare`). Null: look at `process.env` itself.
 */
let envNow: Record<string, string> | null = null;

/** A plain copy of `process.env`, for the next event's `replaceEnv`. */
function rememberEnv(): void {
  envNow = { ...process.env } as Record<string, string>;
}

/** Replaces this process's environment with `env` (in place: Node's `process.env` is special). */
function replaceEnv(env: Record<string, string>): void {
  const now = envNow ?? ({ ...process.env } as Record<string, string>);
  // Whatever the event does to the environment, the copy is taken again before the next one.
  envNow = null;
  for (const name in now) if (!Object.hasOwn(env, name)) delete process.env[name];
  for (const name in env) {
    const value = env[name] as string;
    if (now[name] !== value) process.env[name] = value;
  }
}

/** Runs the event of `question` as its hook process would have; `restore` undoes its context. */
async function run(question: ServerQuestion): Promise<{ answer: ServerAnswer; restore(): void }> {
  const found = bundles.modulesFor(question.host);
  if ("none" in found) return { answer: { kind: "self", why: found.none }, restore() {} };
  if ("changed" in found) {
    // The package was upgraded or removed under the server: a new server serves the new one.
    retire();
    return { answer: { kind: "self", why: found.changed }, restore() {} };
  }
  const modules = found.modules;
  try {
    process.chdir(question.cwd);
  } catch (error) {
    const why = `cannot work in ${question.cwd}: ${String(error)}`;
    return { answer: { kind: "self", why }, restore() {} };
  }
  replaceEnv(question.env);
  const mask = process.umask(question.umask);
  const exitBefore = new Set(process.listeners("exit"));
  const resourcesBefore = process.getActiveResourcesInfo().length;
  let stdout = "";
  let stderr = "";
  const io: HookIo = {
    stdin: textStream(question.input),
    stdout: {
      write(text: string) {
        stdout += text;
        return true;
      },
    },
    stderr: {
      write(text: string) {
        stderr += text;
        return true;
      },
    },
    env: process.env,
    cwd: question.cwd,
  };
  let code = 0;
  // What the event leaves for after its answer (a replaced document's old file, its folders'
  // flush): `answer` runs it.
  openAfterAnswer();
  try {
    const runWith = modules.runHookWith as (
      host: string,
      args: readonly string[],
      io: HookIo,
    ) => Promise<number | null>;
    code = (await runWith(question.host, question.args, io)) ?? 0;
  } catch (error) {
    // As an uncaught error ends a hook process: its stack on stderr, exit code 1.
    stderr += `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
    code = 1;
    bundles.discard(question.host);
  }
  await settle(resourcesBefore);
  // What a hook process does as it exits: the exit handlers its modules installed.
  for (const listener of process.listeners("exit")) {
    if (exitBefore.has(listener)) continue;
    process.removeListener("exit", listener);
    try {
      (listener as (code: number) => void)(code);
    } catch {}
  }
  return {
    answer: { kind: "done", code, stdout, stderr },
    // After the answer is sent: the hook does not wait for this.
    restore() {
      // The environment stays until the next event replaces it (only what differs: little, from
      // one event of a session to the next); nothing between events reads it.
      process.umask(mask);
      process.chdir("/");
    },
  };
}

/**
 * Waits, as a hook process would before it exits, for what the event left
 * running; a server whose event left something running past `LEFTOVER_MS`
 * retires, so nothing of it can meet the next event.
 */
async function settle(before: number): Promise<void> {
  const until = Date.now() + LEFTOVER_MS;
  for (;;) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (process.getActiveResourcesInfo().length <= before) return;
    if (Date.now() >= until) return retire();
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
}

function readQuestion(path: string): ServerQuestion | null {
  const uid = process.getuid?.();
  const s = lstatSync(path, { throwIfNoEntry: false });
  if (s === undefined || !s.isFile() || (uid !== undefined && s.uid !== uid)) return null;
  if (s.size > MAX_QUESTION_BYTES) return null;
  // As text, in one call (a buffer's read and decoding go through more of Node's JavaScript).
  return parseQuestion(readFileSync(path, "utf8"));
}

function send(nonce: string, answer: ServerAnswer): void {
  const ex = exchangeFiles(files, nonce);
  try {
    writeFileSync(ex.draftAnswer, formatAnswer(answer), { mode: 0o600 });
    renameSync(ex.draftAnswer, ex.answer);
  } catch {
    // The folder went away: the hook finds the server gone and allows the stop.
    rmSync(ex.draftAnswer, { force: true });
  }
}

/** Claims and runs the question `nonce`; false when its hook withdrew it first. */
async function answer(nonce: string): Promise<void> {
  const ex = exchangeFiles(files, nonce);
  try {
    renameSync(ex.question, ex.claimed);
  } catch {
    return;
  }
  let question: ServerQuestion | null = null;
  try {
    question = readQuestion(ex.claimed);
  } catch {}
  try {
    // Not `rmSync`: its checks cost more than the unlink.
    unlinkSync(ex.claimed);
  } catch {}
  if (question === null) return send(nonce, { kind: "self", why: "the question did not parse" });
  events += 1;
  const { answer, restore } = await run(question);
  send(nonce, answer);
  // In the event's folder still: what it left to do names its files as it knew them.
  runAfterAnswer();
  restore();
  // Later, not now: the hook that was answered is exiting, and on a machine of few cores the
  // collection would take its time from that exit.
  setTimeout(prepare, PREPARE_DELAY_MS);
  if (events >= MAX_EVENTS) retire();
}

let draining: Promise<void> | null = null;
/** Questions the folder's watch named, not yet answered. */
const heard = new Set<string>();
/** Whether to look through the whole folder once `heard` is empty (at start, and at each check). */
let rescan = true;

/** Answers the questions heard (and, when asked for, all in the folder), one at a time. */
function drain(): void {
  if (draining !== null) return;
  draining = (async () => {
    while (!retiring) {
      const next = heard.values().next();
      if (next.done === true) {
        if (!rescan) return;
        rescan = false;
        let names: string[];
        try {
          names = readdirSync(folder);
        } catch {
          return exit();
        }
        for (const name of names) {
          const nonce = questionNonce(files, name);
          if (nonce !== null) heard.add(nonce);
        }
        continue;
      }
      heard.delete(next.value);
      clearTimeout(idleTimer);
      await answer(next.value);
      if (!retiring) idleTimer = setTimeout(exit, IDLE_MS);
    }
  })().finally(() => {
    draining = null;
    // A question heard as the loop ended.
    if (!retiring && (heard.size > 0 || rescan)) drain();
  });
}

function sweep(): void {
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(`${files.prefix}.`) || /\.(pid|start)$/.test(name)) continue;
    const path = join(folder, name);
    const age = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > STALE_MS) rmSync(path, { force: true });
  }
}

function check(): void {
  if (serverFolderProblem(folder) !== null) exit();
  if (liveServer(files) !== process.pid) exit();
  if (statSync(hookDir, { throwIfNoEntry: false }) === undefined) exit();
  try {
    sweep();
  } catch {
    exit();
  }
  // A question whose event the watch did not deliver.
  rescan = true;
  drain();
}

/** Makes this process the one server of its key (the pid file, created exclusively). */
function claimPid(): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(files.pid, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
    }
    const other = liveServer(files);
    if (other !== null && other !== process.pid) return false;
    // A server that died: its pid file is ours to replace.
    rmSync(files.pid, { force: true });
  }
  return false;
}

function main(): void {
  process.chdir("/");
  (globalThis as Record<symbol, unknown>)[RESIDENT] = true;
  if (serverFolderProblem(folder) !== null || !claimPid()) {
    rmSync(files.start, { force: true });
    exit();
  }
  ownPid = true;
  try {
    // Started before any event (a thread's start takes milliseconds); none means one by one.
    (globalThis as Record<symbol, unknown>)[FLUSH_BESIDE] = startFlushHelper().flushBeside;
  } catch {}
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, exit);
  // An error no event caught: this process's state is unknown, so it serves no more.
  process.on("uncaughtException", exit);
  process.on("unhandledRejection", () => retire());
  questions = watch(folder, { persistent: true }, (_event, name) => {
    const nonce = name === null ? null : questionNonce(files, String(name));
    if (nonce === null) return;
    heard.add(nonce);
    drain();
  });
  questions.on("error", () => exit());
  rmSync(files.start, { force: true });
  idleTimer = setTimeout(exit, IDLE_MS);
  checkTimer = setInterval(check, CHECK_MS);
  // Questions that came before the watch began.
  drain();
}

main();
