import { performance } from "node:perf_hooks";
import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Lets other work run (requests, signals, timers) once `budgetMs` of
 * uninterrupted work has passed: call `maybe()` between small units of work.
 */
export class Yielder {
  #since = performance.now();
  constructor(private readonly budgetMs = 8) {}

  async maybe(): Promise<void> {
    if (performance.now() - this.#since < this.budgetMs) return;
    await nextTurn();
    this.#since = performance.now();
  }
}
