import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import { emptyList } from "../../core/todo/model.js";
import { createFileStore } from "./index.js";
import { type ScopeChanges, scopeKeyOfFile, watchFileStore } from "./watch.js";

describe("scopeKeyOfFile", () => {
  it("places every document of a scope, skips transient files, and gives up on others", () => {
    expect(scopeKeyOfFile("tui.json")).toBe("tui");
    expect(scopeKeyOfFile(".state/tui.json")).toBe("tui");
    expect(scopeKeyOfFile(".state/cron/snightly.log.jsonl")).toBe("cron/snightly");
    expect(scopeKeyOfFile("session/sclaude-code.ss-1.json")).toBe("session/sclaude-code.ss-1");
    expect(scopeKeyOfFile("session/sclaude-code.sjson.json")).toBe("session/sclaude-code.sjson");
    expect(scopeKeyOfFile("tui.json.corrupt")).toBe("tui");
    expect(scopeKeyOfFile(".state/tui.lock")).toBe("transient");
    expect(scopeKeyOfFile("tui.json.abc123.tmp")).toBe("transient");
    expect(scopeKeyOfFile("session")).toBeNull();
    expect(scopeKeyOfFile("notes.txt")).toBeNull();
  });
});

describe("watchFileStore", () => {
  let root = "";
  afterEach(async () => {
    if (root !== "") await rm(root, { recursive: true, force: true });
  });

  it("reports the scope another writer changed", async () => {
    root = await mkdtemp(join(tmpdir(), "tc-watch-"));
    const store = createFileStore({ root });
    const seen: ScopeChanges[] = [];
    const watcher = watchFileStore(store.todoDir, (changes) => seen.push(changes), 20);
    try {
      const scope = resolveScope({ kind: "cron", jobId: "nightly" })!;
      const write = (content: string) =>
        store.transact(scope, () => ({
          todos: { ...emptyList(), todos: [{ content, status: "pending" }] },
          result: null,
        }));
      // The first write creates folders, which the watcher reports as "reload everything".
      await write("a");
      await expect.poll(() => seen.length, { timeout: 3000 }).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      seen.length = 0;
      await write("b");
      await expect
        .poll(() => seen.flatMap((c) => (c === "all" ? ["all"] : c)), { timeout: 3000 })
        .toContain("cron/snightly");
    } finally {
      watcher.close();
      await store.close();
    }
  });
});
