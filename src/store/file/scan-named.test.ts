import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { Scope, ScopeScan } from "../../core/types.js";
import { createFileStore, type FileStore } from "./file-store.js";
import { listScopeKeys, listScopeKeysAsync } from "./list.js";
import { scopePaths } from "./paths.js";
import { preservedCopies, preservedCopiesOf } from "./preserve.js";
import { writeScaleFixture } from "./scale-fixture.js";
import { scanFileStore } from "./scan.js";
import { scanNamedScopes } from "./scan-named.js";

const HEALTHY = 200;
const LOG_LIMIT = 20;

let root: string;
let store: FileStore;
let damaged: Scope[];

function session(id: string): Scope {
  return resolveScope({ kind: "session", host: "claude-code", sessionId: id })!;
}

async function collect(iterable: AsyncIterable<ScopeScan[]>): Promise<ScopeScan[]> {
  const out: ScopeScan[] = [];
  for await (const batch of iterable) out.push(...batch);
  return out;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "tc-scan-named-"));
  await writeScaleFixture(root, HEALTHY, 3);
  store = createFileStore({ root, logLimit: LOG_LIMIT });
  const names = ["bad", "copies", "stopped", "log-folder", "log-only", "linked", "x", "x.corrupt"];
  damaged = names.map(session);
  for (const scope of damaged) {
    await store.transact(scope, () => ({
      todos: { todos: [{ content: "a", status: "pending" }], phases: [], nextId: 1 },
      result: null,
    }));
  }
  const p = (i: number) => scopePaths(store.todoDir, damaged[i]!);
  writeFileSync(p(0).todos, "{ not json");
  writeFileSync(`${p(0).todos}.corrupt-1700000000000`, "older");
  for (const file of [p(1).todos, p(1).state, p(1).log]) {
    writeFileSync(`${file}.corrupt-1700000000002`, "x");
    writeFileSync(`${file}.corrupt-1700000000001-1`, "x");
    writeFileSync(`${file}.corrupt`, "x");
    writeFileSync(`${file}.corrupt-12`, "not a copy name");
  }
  writeFileSync(p(2).stop, "");
  mkdirSync(p(3).log, { recursive: true });
  writeFileSync(p(4).log, "");
  rmSync(p(4).todos);
  const outside = join(root, "elsewhere.json");
  writeFileSync(outside, "{}");
  rmSync(p(5).todos);
  symlinkSync(outside, p(5).todos);
  writeFileSync(`${p(6).todos}.corrupt-1700000000000`, "x");
  writeFileSync(`${p(7).state}.corrupt-1700000000000`, "x");
  mkdirSync(join(store.todoDir, "session", "stray-folder"), { recursive: true });
});

afterAll(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

describe("scan of named scopes", () => {
  it("answers exactly as the full scan, for healthy and damaged scopes alike", async () => {
    const full = await collect(scanFileStore(store.todoDir, { logTail: 3 }, LOG_LIMIT));
    // Every damaged scope but the symlinked one (a link is not listed) is in the store's list.
    expect(full.length).toBe(HEALTHY + damaged.length - 1);
    const named = await collect(
      scanNamedScopes(
        store.todoDir,
        full.map((item) => item.scope),
        { logTail: 3, batchSize: 64 },
        LOG_LIMIT,
      ),
    );
    expect(named).toEqual(full);
    // Not vacuous: the damage is seen.
    const by = new Map(named.map((item) => [item.scope.key, item]));
    const copies = by.get(damaged[1]!.key)!;
    expect(copies.ok && copies.problems.map((p) => p.preserved.length)).toEqual([3, 3, 3]);
    const stopped = by.get(damaged[2]!.key)!;
    expect(stopped.ok && stopped.snapshot.state.stopped).toBe(true);
  });

  it("says a scope never written holds nothing, and refuses a forged or linked one alone", async () => {
    const forged = { key: "../../etc/passwd", kind: "session" } as unknown as Scope;
    const given = [session("never"), forged, damaged[0]!, damaged[5]!];
    const items = await collect(scanNamedScopes(store.todoDir, given, {}, LOG_LIMIT));
    expect(items.map((i) => i.ok && i.exists)).toEqual([false, false, true, false]);
    expect(items[1]!.ok).toBe(false);
    const linked = items[3]!;
    expect(!linked.ok && linked.error.message).toMatch(/symlink/);
  });

  it("is what the store's scan uses for a batch of named scopes", async () => {
    const viaStore = await collect(store.scan!({ scopes: damaged, logTail: 2 }));
    const named = await collect(scanNamedScopes(store.todoDir, damaged, { logTail: 2 }, LOG_LIMIT));
    expect(viaStore).toEqual(named);
  });
});

describe("asynchronous listing and preserved copies", () => {
  it("lists the same scopes as the synchronous listing", async () => {
    expect(await listScopeKeysAsync(store.todoDir)).toEqual(listScopeKeys(store.todoDir));
    expect(await store.listScopes()).toEqual(listScopeKeys(store.todoDir));
    expect(await listScopeKeysAsync(join(root, "missing"))).toEqual([]);
  });

  it("finds the same preserved copies as the synchronous search", async () => {
    const files = damaged.flatMap((scope) => {
      const p = scopePaths(store.todoDir, scope);
      return [p.todos, p.state, p.log];
    });
    const found = await preservedCopiesOf([...files, join(root, "missing", "a.json")]);
    for (const file of files) expect(found.get(file)).toEqual(preservedCopies(file));
    expect(found.get(join(root, "missing", "a.json"))).toEqual([]);
    expect(files.some((file) => preservedCopies(file).length === 3)).toBe(true);
  });
});
