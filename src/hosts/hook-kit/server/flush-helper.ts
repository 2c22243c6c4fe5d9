import { fsyncSync } from "node:fs";
import { getSystemErrorName } from "node:util";
import { Worker } from "node:worker_threads";
import type { FlushBeside } from "../../../core/resident.js";

/**
 * A thread of the resident server that flushes one file while the event's own thread flushes
 * another. A commit of two documents (a todo write; a Copilot CLI stop after progress) flushes
 * both temporaries before renaming either; one after the other, each waits for its own journal
 * commit, side by side they share one. Measured on ext4, a two-document commit in a server
 * event (interleaved, 300 a side, 20 ms apart): 2.30 ms one by one, 2.02 side by side (faster
 * in 251 of 300). A helper thread keeps the commit synchronous (it runs under the scope's lock,
 * whose lease must not see the event loop turn), where libuv's pool would need the loop.
 *
 * The two threads meet in a shared array: the state (idle, asked, done), the descriptor, the
 * flush's error number, and whether the helper has started. The helper is used once it has
 * started and while it is idle; it sleeps in `Atomics.wait` on the state's current value, never
 * in a loop around it (a first version spun from "done" until the caller collected it, and its
 * calls into V8's wait queue held the caller's wake back: the commit took 1.2 ms longer, not
 * less). The event's thread waits at most `WAIT_MS` for it; past that (a thread that died or
 * hangs) it flushes the file itself and uses the helper no more.
 */

const STATE = 0;
const FD = 1;
const ERRNO = 2;
/** Set by the helper once it waits: until then a flush is not handed over (its start takes ms). */
const READY = 3;
const IDLE = 0;
const ASKED = 1;
const DONE = 2;

/** How long the event's thread waits for the helper before it flushes the file itself. */
export const WAIT_MS = 10_000;

/** The helper's loop: wait to be asked, flush, report, in CommonJS for `eval`. */
const HELPER_SOURCE = `
const { workerData } = require("node:worker_threads");
const { fsyncSync } = require("node:fs");
const shared = new Int32Array(workerData);
Atomics.store(shared, ${READY}, 1);
for (;;) {
  // Asleep until asked (never spinning: a loop on Atomics.wait slows the other thread's wake).
  const state = Atomics.load(shared, ${STATE});
  if (state !== ${ASKED}) {
    Atomics.wait(shared, ${STATE}, state);
    continue;
  }
  let errno = 0;
  try {
    fsyncSync(Atomics.load(shared, ${FD}));
  } catch (error) {
    errno = typeof error.errno === "number" ? error.errno : -5;
  }
  Atomics.store(shared, ${ERRNO}, errno);
  Atomics.store(shared, ${STATE}, ${DONE});
  Atomics.notify(shared, ${STATE});
}
`;

/** The error a flush of `fd` failed with, as Node's own would read. */
function flushError(errno: number, fd: number): NodeJS.ErrnoException {
  let code: string;
  try {
    code = getSystemErrorName(errno);
  } catch {
    code = "EIO";
  }
  const error: NodeJS.ErrnoException = new Error(`${code}: fsync of descriptor ${fd} failed`);
  error.code = code;
  error.errno = errno;
  error.syscall = "fsync";
  return error;
}

/**
 * Starts the helper thread (off any event: its start takes milliseconds) and returns the
 * {@link FlushBeside} the server puts on `globalThis`. `source` replaces the helper's code, for
 * the tests of a helper that never answers.
 */
export function startFlushHelper(options: { waitMs?: number; source?: string } = {}): {
  flushBeside: FlushBeside;
  stop(): Promise<number>;
  /** Settles once the helper's thread has ended. */
  ended: Promise<void>;
} {
  const shared = new Int32Array(new SharedArrayBuffer(4 * 4));
  const worker = new Worker(options.source ?? HELPER_SOURCE, {
    eval: true,
    workerData: shared.buffer,
  });
  // The helper never keeps the server running: its exits stay its own.
  worker.unref();
  let usable = true;
  worker.on("error", () => {
    usable = false;
  });
  const ended = new Promise<void>((resolve) => {
    worker.on("exit", () => {
      usable = false;
      resolve();
    });
  });
  const waitMs = options.waitMs ?? WAIT_MS;
  const flushBeside: FlushBeside = (fd) => {
    if (!usable || Atomics.load(shared, READY) !== 1 || Atomics.load(shared, STATE) !== IDLE) {
      return null;
    }
    Atomics.store(shared, FD, fd);
    Atomics.store(shared, STATE, ASKED);
    Atomics.notify(shared, STATE);
    return () => {
      const deadline = Date.now() + waitMs;
      while (Atomics.load(shared, STATE) === ASKED) {
        const left = deadline - Date.now();
        if (left <= 0 || Atomics.wait(shared, STATE, ASKED, left) === "timed-out") {
          // The helper is gone or stuck: this thread flushes the file, and hands over no more.
          usable = false;
          fsyncSync(fd);
          return;
        }
      }
      const errno = Atomics.load(shared, ERRNO);
      Atomics.store(shared, STATE, IDLE);
      if (errno !== 0) throw flushError(errno, fd);
    };
  };
  return { flushBeside, stop: () => worker.terminate(), ended };
}
