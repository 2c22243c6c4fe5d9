import { describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { DecisionLogEntry, Scope, ScopeScan, Store } from "../core/types.js";
import { MemoryStore } from "./memory/memory-store.js";
import { scanScopes } from "./scan.js";

/** The per-scope fallback, for stores without a `scan` of their own. */

function session(i: number): Scope {
  return resolveScope({ kind: "session", host: "test", sessionId: `s-${i}` })!;
}

function entry(at: number): DecisionLogEntry {
  return {
    at,
    action: "skip",
    reason: "cooldown",
    episodeId: null,
    autoTurns: 0,
    tokens: 0,
    stagnation: 0,
    actionable: 1,
    blocked: 0,
    nudgeChars: null,
    nudgeTokens: null,
    trigger: "idle",
  };
}

async function collect(iterable: AsyncIterable<ScopeScan[]>): Promise<ScopeScan[][]> {
  const out: ScopeScan[][] = [];
  for await (const batch of iterable) out.push(batch);
  return out;
}

async function filled(count: number): Promise<MemoryStore> {
  const store = new MemoryStore({ logLimit: 10 });
  for (let i = 0; i < count; i++) {
    await store.transact(session(i), () => ({
      todos: { todos: [{ content: `item ${i}`, status: "pending" }], phases: [], nextId: 1 },
      log: Array.from({ length: i % 13 }, (_, n) => entry(n)),
      result: null,
    }));
  }
  return store;
}

describe("scanScopes on a store without scan", () => {
  it("gives what read and readLog give, in key order and batches of the asked size", async () => {
    const store = await filled(150);
    const batches = await collect(scanScopes(store, { batchSize: 40, logTail: 4 }));
    expect(batches.map((b) => b.length)).toEqual([40, 40, 40, 30]);
    const items = batches.flat();
    expect(items.map((i) => i.scope)).toEqual(await store.listScopes());
    for (const item of items) {
      if (!item.ok) throw item.error;
      expect(item.snapshot).toEqual(await store.read(item.scope));
      expect(item.log).toEqual(await store.readLog(item.scope, 4));
      expect(item.exists).toBe(true);
    }
  });

  it("reports a scope whose read fails alone, and a scope with nothing stored as absent", async () => {
    const store = await filled(3);
    const failing: Store = {
      ...store,
      read: (scope) =>
        scope.key === session(1).key
          ? Promise.reject(new Error("disk on fire"))
          : store.read(scope),
      readLog: (scope, limit) => store.readLog(scope, limit),
      listScopes: () => store.listScopes(),
      transact: (scope, fn) => store.transact(scope, fn),
      deleteScope: (scope) => store.deleteScope(scope),
      close: () => store.close(),
    };
    const items = (
      await collect(scanScopes(failing, { scopes: [session(0), session(1), session(99)] }))
    ).flat();
    expect(items.map((i) => i.ok)).toEqual([true, false, true]);
    expect(!items[1]!.ok && items[1]!.error.message).toBe("disk on fire");
    expect(items[2]!.ok && items[2]!.exists).toBe(false);
    expect(items[0]!.ok && items[0]!.log).toEqual([]);
  });

  it("reads no log with a tail of 0 but still tells whether the scope exists", async () => {
    const store = await filled(20);
    const items = (await collect(scanScopes(store, { logTail: 0 }))).flat();
    expect(items.every((i) => i.ok && i.log.length === 0 && i.exists)).toBe(true);
  });
});
