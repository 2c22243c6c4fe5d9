import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import { AFTER_ANSWER } from "../../core/resident.js";
import { resolveScope } from "../../core/scope/scope.js";
import { commitProbe } from "./commit.js";
import { createFileStore, type FileStore } from "./file-store.js";
import { removeOrphanedTemps, SWEEP_INTERVAL_MS } from "./orphans.js";
import { scopePaths } from "./paths.js";
import { holdForLater } from "./release-later.js";
import { inServerEvent, list } from "./test-support/fixtures.js";

const SCOPE = resolveScope({ kind: "cron", jobId: "release" })!;
const globals = globalThis as Record<symbol, unknown>;

/** The temporaries beside the scope's documents. */
function temporaries(store: FileStore): string[] {
  const paths = scopePaths(store.todoDir, SCOPE);
  return [dirname(paths.todos), dirname(paths.state)].flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith(".tmp"))
      .map((name) => join(dir, name)),
  );
}

describe("a replaced document's old file, removed after the answer", () => {
  let root: string;
  let store: FileStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "tc-release-"));
    store = createFileStore({ root });
    await store.transact(SCOPE, () => ({ todos: list("old"), state: emptyState(), result: null }));
  });

  afterEach(async () => {
    delete globals[AFTER_ANSWER];
    commitProbe.reached = null;
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  const replace = () =>
    store.transact(SCOPE, (s) => ({
      todos: list("new"),
      state: { ...s.state, stopped: true },
      result: null,
    }));

  it("outside a resident server's event, removes it in the commit, as before", async () => {
    await replace();
    expect(temporaries(store)).toEqual([]);
    expect((await store.read(SCOPE)).todos.todos[0]?.content).toBe("new");
  });

  it("inside one, keeps each old file under a temporary's name until the answer is sent", async () => {
    const paths = scopePaths(store.todoDir, SCOPE);
    const before = [readFileSync(paths.todos, "utf8"), readFileSync(paths.state, "utf8")];
    const event = inServerEvent();
    await replace();
    const held = temporaries(store);
    expect(held).toHaveLength(2);
    // The old bytes, under names the orphan sweep knows: `<document>.<pid>-<8 hex>.tmp`.
    expect(held.map((path) => readFileSync(path, "utf8")).sort()).toEqual([...before].sort());
    for (const path of held) expect(path).toMatch(/\.json\.\d+-[0-9a-f]{8}\.tmp$/);
    const after = await store.read(SCOPE);
    expect(after.todos.todos[0]?.content).toBe("new");
    expect(after.state.stopped).toBe(true);
    expect(event.drain()).toBe(2);
    expect(temporaries(store)).toEqual([]);
  });

  it("a commit that fails removes the second names at once and leaves nothing for later", async () => {
    const paths = scopePaths(store.todoDir, SCOPE);
    const before = [readFileSync(paths.todos, "utf8"), readFileSync(paths.state, "utf8")];
    const event = inServerEvent();
    let renames = 0;
    commitProbe.reached = (step) => {
      // The second document's rename fails: the first is put back.
      if (step === "document-renamed" && ++renames === 2) throw new Error("disk gone");
    };
    await expect(replace()).rejects.toThrow("disk gone");
    commitProbe.reached = null;
    expect([readFileSync(paths.todos, "utf8"), readFileSync(paths.state, "utf8")]).toEqual(before);
    expect(temporaries(store)).toEqual([]);
    expect(event.drain()).toBe(0);
  });

  it("a second name a crash left behind is an orphan the store's sweep removes", () => {
    const paths = scopePaths(store.todoDir, SCOPE);
    inServerEvent();
    const held = holdForLater(paths.state);
    expect(held).not.toBeNull();
    delete globals[AFTER_ANSWER];
    // At the folder's next sweep: older than the limit, and not the sweeping transaction's own.
    const later = Date.now() + SWEEP_INTERVAL_MS + 1000;
    const removed = removeOrphanedTemps([paths.state], "1-00000000", 60_000, later);
    expect(removed).toBe(1);
    expect(temporaries(store)).toEqual([]);
  });

  it("holds nothing outside an event", () => {
    expect(holdForLater(scopePaths(store.todoDir, SCOPE).state)).toBeNull();
    expect(temporaries(store)).toEqual([]);
  });
});
