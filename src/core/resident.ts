/**
 * Set on `globalThis` by the resident hook server (`hosts/hook-kit/server`): code that spares a new process a module's
 * load (hashing in JavaScript rather than loading `node:crypto`) takes the module there, where
 * it is loaded once for every event.
 */
export const RESIDENT = Symbol.for("todo-continuation.resident-hook-server");

export function inResidentServer(): boolean {
  return (globalThis as Record<symbol, unknown>)[RESIDENT] === true;
}

/**
 * Set on `globalThis` by the resident hook server while it runs an event: the work the event
 * left for after its answer (see {@link afterAnswer}). The server runs it once the answer is
 * sent, before it takes the next event.
 */
export const AFTER_ANSWER = Symbol.for("todo-continuation.after-answer");

/** The queue of the event the resident server is running, or null outside one. */
function answerQueue(): (() => void)[] | null {
  const queue = (globalThis as Record<symbol, unknown>)[AFTER_ANSWER];
  return Array.isArray(queue) ? queue : null;
}

/** Whether {@link afterAnswer} would take a task now (an event of the resident server runs). */
export function answerPending(): boolean {
  return answerQueue() !== null;
}

/**
 * Leaves `task` for after the event's answer is sent, where the host waits for nothing: only
 * work the answer does not depend on (removing a file nothing reads). False when no resident
 * server's event runs: the caller does the work now.
 */
export function afterAnswer(task: () => void): boolean {
  const queue = answerQueue();
  if (queue === null) return false;
  queue.push(task);
  return true;
}

/**
 * Set on `globalThis` by the resident hook server: hands a file's flush to a helper thread, so
 * a commit of two documents flushes both at once (`writeEachDurably` in the file store).
 */
export const FLUSH_BESIDE = Symbol.for("todo-continuation.flush-beside");

/**
 * Starts flushing the file open at `fd` elsewhere and returns the wait for it, which throws the
 * flush's error; null when it cannot be handed over (the caller flushes the file itself).
 */
export type FlushBeside = (fd: number) => (() => void) | null;

/** The resident server's helper, or null outside the server. */
export function flushBeside(): FlushBeside | null {
  const helper = (globalThis as Record<symbol, unknown>)[FLUSH_BESIDE];
  return typeof helper === "function" ? (helper as FlushBeside) : null;
}
