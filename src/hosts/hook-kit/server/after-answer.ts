import { AFTER_ANSWER } from "../../../core/resident.js";

/**
 * The resident server's side of `afterAnswer` (`core/resident.ts`): each event gets a queue of
 * work the host need not wait for, run once its answer is sent and before the next event.
 */

/** Opens the running event's queue. */
export function openAfterAnswer(): void {
  (globalThis as Record<symbol, unknown>)[AFTER_ANSWER] = [];
}

/**
 * Closes the queue and runs what the event left in it, in order; a task that throws does not
 * keep the others from running. Returns how many ran.
 */
export function runAfterAnswer(): number {
  const store = globalThis as Record<symbol, unknown>;
  const queue = store[AFTER_ANSWER];
  delete store[AFTER_ANSWER];
  if (!Array.isArray(queue)) return 0;
  for (const task of queue as (() => void)[]) {
    try {
      task();
    } catch {
      // Best effort: a second name left is an orphan the store sweeps; a folder not flushed
      // now is by the next commit in it (or the system's own writeback).
    }
  }
  return queue.length;
}
