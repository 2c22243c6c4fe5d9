import { existsSync, readFileSync, readSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { randomHex } from "../../../core/hash/random-hex.js";
import { fdBlocks } from "../fd-blocks.js";
import { MAX_HOOK_INPUT_BYTES } from "../input-limit.js";
import {
  exchangeFiles,
  liveServer,
  privateFolderProblem,
  type ServerFiles,
  serverPid,
} from "./server-files.js";
import { parseAnswer, questionHeader } from "./server-protocol.js";

/**
 * The hook's side of the resident server: hand it the event and print its
 * answer. Synchronous and cheap in a new process (a few file calls; a socket's
 * first use costs a new Node process about 3 ms). Each file is read and
 * written whole, as text, through Node's own C++ paths (`readFileSync` and
 * `writeFileSync` with text): the first use of `openSync`, `readSync` and a
 * buffer's decoding costs a new process 0.3 to 0.5 ms each. Every doubt comes back as
 * "run it here": no server, an unusable folder, a server that does not claim
 * the question in time (busy with another event's long check). Once the
 * server has claimed the question, only its answer counts: a server that dies
 * before answering leaves the event undecided, and the hook allows the stop.
 */

export type AskOutcome =
  | { kind: "answered"; code: number; stdout: string; stderr: string }
  /**
   * Run the event in this process: `why` the server does not, `input` is stdin when it was read
   * already, `start` a server after.
   */
  | { kind: "here"; why: string; input?: string; start: boolean }
  /** The server claimed the event and ended without answering. */
  | { kind: "lost"; why: string };

/** How long a hook waits for the server to claim its question before it runs the event itself. */
export const CLAIM_TIMEOUT_MS = 50;
/** The first look for the answer, and the most time between looks in the first 20 ms. */
const FIRST_POLL_MS = 0.05;
const FAST_POLL_MS = 0.2;
/** An answer parsed while the server works, so that parsing the real one runs compiled code. */
const WARM_ANSWER = '{"v":1,"kind":"done","code":0,"stdout":"","stderr":""}';
/** How often a hook whose question was claimed checks that the server still runs. */
const LIVENESS_MS = 100;

let pause: Int32Array | undefined;
function sleep(ms: number): void {
  pause ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(pause, 0, 0, ms);
}

/**
 * `fd` to its end (a non-blocking descriptor is waited on), or to just past
 * `limit` bytes: the hook's own reader then refuses it with its usual message.
 * Into one buffer, doubled when full. The slow way: for a descriptor that is
 * not blocking, whose whole read in C++ would lose what it read before it met
 * EAGAIN.
 */
function readPatiently(fd: number, limit: number): string {
  let buffer = Buffer.allocUnsafe(64 * 1024);
  let size = 0;
  for (;;) {
    if (size === buffer.length) {
      const larger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(larger, 0, 0, size);
      buffer = larger;
    }
    let read: number;
    try {
      read = readSync(fd, buffer, size, buffer.length - size, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN" || code === "EWOULDBLOCK") {
        sleep(1);
        continue;
      }
      if (code === "EOF") break;
      throw error;
    }
    if (read === 0) break;
    size += read;
    if (size > limit) break;
  }
  return buffer.toString("utf8", 0, size);
}

/**
 * The hook's stdin as text (every host's event is JSON; the hook decodes it as UTF-8 in any
 * case). Read whole in one C++ call when the descriptor blocks, else patiently.
 */
export function readStdin(fd: number, limit: number = MAX_HOOK_INPUT_BYTES): string {
  return fdBlocks(fd) ? readFileSync(fd, "utf8") : readPatiently(fd, limit);
}

/** Whether `text` is more than `limit` bytes of UTF-8 (each UTF-16 unit is at most three). */
function overLimit(text: string, limit: number): boolean {
  return text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text) > limit);
}

export interface AskIo {
  /** The hook's environment (handed over as is: `process.env` itself, not a copy). */
  env: Record<string, string | undefined>;
  cwd: string;
  stdinFd: number;
  /**
   * Work for after the answer, done once the question is handed over: the server takes
   * milliseconds over it, while this process would only wait.
   */
  whileWaiting?: () => void;
}

export function askServer(
  files: ServerFiles,
  host: string,
  args: readonly string[],
  io: AskIo,
  claimTimeoutMs: number = CLAIM_TIMEOUT_MS,
): AskOutcome {
  const problem = privateFolderProblem(files.folder);
  // A folder not made yet is made by the start; an unsafe one is never used.
  if (problem !== null)
    return { kind: "here", why: problem, start: problem.endsWith("does not exist") };
  // The pid file alone: whether its process is a server is asked only when it does not answer.
  const pid = serverPid(files);
  if (pid === null) return { kind: "here", why: "no hook server runs", start: true };
  const input = readStdin(io.stdinFd);
  if (overLimit(input, MAX_HOOK_INPUT_BYTES)) {
    return { kind: "here", why: "the input is too large", input, start: false };
  }
  const ex = exchangeFiles(files, `${process.pid}-${randomHex(4)}`);
  // Created closed to others by the umask (an options object for the mode costs a new process
  // 0.3 ms more; the folder is closed to others in any case); `umask` is the hook's own again
  // before anything else runs.
  const umask = process.umask(0o077);
  try {
    const header = questionHeader({ host, args: [...args], cwd: io.cwd, umask, env: io.env });
    writeFileSync(ex.draft, header + input);
    renameSync(ex.draft, ex.question);
  } catch (error) {
    remove(ex.draft);
    return {
      kind: "here",
      why: `the question could not be written: ${String(error)}`,
      input,
      start: false,
    };
  } finally {
    process.umask(umask);
  }
  try {
    // The answer's reader compiled now, not once the answer is there.
    parseAnswer(WARM_ANSWER);
    io.whileWaiting?.();
  } catch {
    // Only a head start: the same work is done again after the answer.
  }
  // `Date.now`, not `performance.now`: the latter's first call costs a new process 1.2 to 1.9 ms.
  const start = Date.now();
  let claimed = false;
  /** Whether the question is gone from the folder (claimed, or withdrawn by this hook). */
  let settled = false;
  let lastLook = start;
  try {
    for (let wait = FIRST_POLL_MS; ; ) {
      sleep(wait);
      // Most answers come within a few milliseconds: looked for often at first, then less.
      wait = Math.min(claimed ? 5 : Date.now() - start < 20 ? FAST_POLL_MS : 1, wait * 2);
      if (existsSync(ex.answer)) {
        settled = true;
        return readAnswer(ex.answer, input);
      }
      const now = Date.now();
      if (!claimed && now - start >= claimTimeoutMs) {
        try {
          // Still there: the server never took it, and now it cannot.
          unlinkSync(ex.question);
          settled = true;
          // A server that died without removing its pid file is replaced by a new one.
          if (liveServer(files) !== pid) {
            return {
              kind: "here",
              why: `the hook server (pid ${pid}) is gone`,
              input,
              start: true,
            };
          }
          const why = `the hook server (pid ${pid}) did not take the event within ${claimTimeoutMs} ms`;
          return { kind: "here", why, input, start: false };
        } catch {
          claimed = true;
          settled = true;
        }
      }
      if (claimed && now - lastLook >= LIVENESS_MS) {
        lastLook = now;
        if (liveServer(files) !== pid) {
          if (existsSync(ex.answer)) return readAnswer(ex.answer, input);
          return { kind: "lost", why: `the hook server (pid ${pid}) ended before it answered` };
        }
      }
    }
  } finally {
    // Only the answer is left of a finished exchange (the server took the question, or the hook
    // withdrew it); a removal that fails costs a new process an error's making, so none is tried
    // that need not be.
    if (!settled) remove(ex.question);
    remove(ex.answer);
  }
}

/** Removes `path` if it is there (`rmSync` would load a module of its own in a new process). */
function remove(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}

/**
 * The answer at `path`. Read without a look at whose it is: only this user can make a file in
 * the folder (the hook checked it is theirs and closed to others before it asked).
 */
function readAnswer(path: string, input: string): AskOutcome {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { kind: "lost", why: "the hook server's answer could not be read" };
  }
  const answer = parseAnswer(text);
  if (answer === null) return { kind: "lost", why: "the hook server's answer did not parse" };
  if (answer.kind === "self") return { kind: "here", why: answer.why, input, start: false };
  return { kind: "answered", code: answer.code, stdout: answer.stdout, stderr: answer.stderr };
}
