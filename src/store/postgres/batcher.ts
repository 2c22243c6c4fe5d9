/** One item's outcome inside a batch: batches succeed or fail per item. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface BatcherOptions<I> {
  /** Batches running at once; items arriving meanwhile wait and go out together. */
  maxInFlight: number;
  maxBatch: number;
  /** Items with the same key never share a batch (a later one waits for the next). */
  keyOf?: (item: I) => string;
}

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces concurrent requests into batches without ever waiting on a
 * timer: with a slot free, a request goes out at once (a batch of one); while
 * every slot is busy, requests queue and leave together when one frees up. So
 * an idle store adds no latency and a busy one makes fewer round trips.
 */
export class Batcher<I, O> {
  readonly #run: (items: I[]) => Promise<Settled<O>[]>;
  readonly #options: BatcherOptions<I>;
  #queue: Pending<I, O>[] = [];
  #inFlight = 0;

  constructor(run: (items: I[]) => Promise<Settled<O>[]>, options: BatcherOptions<I>) {
    this.#run = run;
    this.#options = options;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#pump();
    });
  }

  #take(): Pending<I, O>[] {
    const { keyOf, maxBatch } = this.#options;
    if (keyOf === undefined) return this.#queue.splice(0, maxBatch);
    const batch: Pending<I, O>[] = [];
    const rest: Pending<I, O>[] = [];
    const keys = new Set<string>();
    for (const pending of this.#queue) {
      const key = keyOf(pending.item);
      if (batch.length < maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(pending);
      } else {
        rest.push(pending);
      }
    }
    this.#queue = rest;
    return batch;
  }

  #pump(): void {
    while (this.#inFlight < this.#options.maxInFlight && this.#queue.length > 0) {
      const batch = this.#take();
      this.#inFlight++;
      this.#send(batch).finally(() => {
        this.#inFlight--;
        this.#pump();
      });
    }
  }

  async #send(batch: Pending<I, O>[]): Promise<void> {
    let results: Settled<O>[];
    try {
      results = await this.#run(batch.map((p) => p.item));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, i) => {
      const result = results[i];
      if (result === undefined) pending.reject(new Error("Batcher: the batch returned no result"));
      else if (result.ok) pending.resolve(result.value);
      else pending.reject(result.error);
    });
  }
}
