import { perEvent } from "../../core/per-event.js";
import {
  type HeldLock,
  type LockOwner,
  type LockRecord,
  stillOurs,
  tryLock,
  unlock,
} from "./lock.js";

/**
 * Keeps a scope's lock across back-to-back transactions of one store: a lock
 * taken for a transaction is released when the event loop next turns
 * (`setImmediate`), not at the end of the transaction. A burst of
 * transactions chained by `await` (record an outcome, decide, log) then pays
 * for one lock, not one per transaction, while another process waits at most
 * until this one yields to the event loop or the lease reaches its age limit.
 *
 * Every reuse re-checks that the entry is still this holding, and the store
 * checks again before it commits, so a lease taken over meanwhile is never
 * written under.
 */

/** Leases older than this are released and taken afresh, so others see a young lock. */
const MAX_LEASE_MS = 250;

interface Lease {
  lock: HeldLock;
  since: number;
}

/** Stores with leases still held, released on exit so no lock outlives its process. */
const live = new Set<LockLeases>();
let exitHookInstalled = false;
// The resident server runs (and removes) the exit handlers an event installed as the event ends,
// as the event's process would have exited: the next event installs its own.
perEvent(() => {
  live.clear();
  exitHookInstalled = false;
});

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const leases of live) leases.releaseAll();
  });
}

export class LockLeases {
  readonly #held = new Map<string, Lease>();
  readonly #owner: LockOwner;
  readonly #staleMs: number;
  readonly #maxAgeMs: number;
  #releaseQueued = false;

  constructor(owner: LockOwner, staleMs: number) {
    this.#owner = owner;
    this.#staleMs = staleMs;
    this.#maxAgeMs = Math.min(MAX_LEASE_MS, Math.floor(staleMs / 4));
  }

  /**
   * The lock of `path`: the lease this store holds when it is still valid,
   * else a fresh one; null when another holder has it.
   */
  acquire(path: string, onTakeOver: (previous: LockRecord | null) => void): HeldLock | null {
    const lease = this.#held.get(path);
    if (lease !== undefined) {
      if (Date.now() - lease.since < this.#maxAgeMs && stillOurs(lease.lock)) return lease.lock;
      this.release(path);
    }
    const lock = tryLock(path, this.#owner, { staleMs: this.#staleMs, onTakeOver });
    if (lock === null) return null;
    this.#held.set(path, { lock, since: Date.now() });
    live.add(this);
    installExitHook();
    this.#queueRelease();
    return lock;
  }

  /** Gives up the lease on `path` (removing the entry only if it is still ours). */
  release(path: string): void {
    const lease = this.#held.get(path);
    if (lease === undefined) return;
    this.#held.delete(path);
    if (this.#held.size === 0) live.delete(this);
    try {
      unlock(lease.lock);
    } catch {
      // Left behind, it is taken over like a crashed holder's.
    }
  }

  releaseAll(): void {
    for (const path of [...this.#held.keys()]) this.release(path);
  }

  #queueRelease(): void {
    if (this.#releaseQueued) return;
    this.#releaseQueued = true;
    setImmediate(() => {
      this.#releaseQueued = false;
      this.releaseAll();
    });
  }
}
