import { chmodSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GOAL_EVENT_MARKER, lastLineWith } from "./goal.js";
import { rolloutMemoStore } from "./rollout-memo.js";
import { goalLine } from "./test-support/rollout-lines.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fixture() {
  const root = mkdtempSync(join(tmpdir(), "tc-rollout-memo-"));
  made.push(root);
  const env = { HOME: join(root, "home") };
  const folder = join(root, "home", ".cache", "todo-continuation", "codex-rollouts");
  return { root, env, folder };
}

const memo = { dev: 1, ino: 2, scanned: 300, line: "a goal line", at: 12 };

describe("rolloutMemoStore", () => {
  it("keeps a memo per rollout in a private file, and reads back only that rollout's", () => {
    const { env, folder } = fixture();
    const store = rolloutMemoStore(env)!;
    expect(store.read("/r/one.jsonl")).toBeNull();
    store.write("/r/one.jsonl", memo);
    expect(rolloutMemoStore(env)!.read("/r/one.jsonl")).toEqual(memo);
    expect(store.read("/r/two.jsonl")).toBeNull();
    const [name] = readdirSync(folder);
    // A memo file of another path, or damaged, or that others may write, is no memo.
    writeFileSync(join(folder, name as string), JSON.stringify({ ...memo, path: "/r/two.jsonl" }));
    expect(store.read("/r/one.jsonl")).toBeNull();
    writeFileSync(join(folder, name as string), "{not json");
    expect(store.read("/r/one.jsonl")).toBeNull();
    store.write("/r/one.jsonl", memo);
    chmodSync(join(folder, name as string), 0o666);
    expect(store.read("/r/one.jsonl")).toBeNull();
    expect(rolloutMemoStore({})).toBeUndefined();
  });

  it("sweeps memos of rollouts untouched for 30 days when a new rollout's first is written", () => {
    const { env, folder } = fixture();
    const store = rolloutMemoStore(env)!;
    store.write("/r/old.jsonl", memo);
    const [old] = readdirSync(folder);
    store.write("/r/recent.jsonl", memo);
    const longAgo = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
    utimesSync(join(folder, old as string), longAgo, longAgo);
    // Writing a rollout's memo again sweeps nothing; a new rollout's first memo does.
    store.write("/r/recent.jsonl", { ...memo, scanned: 400 });
    expect(store.read("/r/old.jsonl")).toEqual(memo);
    store.write("/r/new.jsonl", memo);
    expect(store.read("/r/old.jsonl")).toBeNull();
    expect(store.read("/r/recent.jsonl")).toEqual({ ...memo, scanned: 400 });
    expect(store.read("/r/new.jsonl")).toEqual(memo);
  });

  it("spares a stop reading a long rollout again: the answer stays the plain search's", async () => {
    const { root, env } = fixture();
    const path = join(root, "rollout.jsonl");
    writeFileSync(path, `${goalLine("active")}\n${"x".repeat(100)}\n`);
    const store = rolloutMemoStore(env)!;
    for (let i = 0; i < 3; i++) {
      expect(await lastLineWith(path, GOAL_EVENT_MARKER, store, 0)).toBe(goalLine("active"));
    }
    expect(store.read(path)).toMatchObject({ line: goalLine("active"), at: 0 });
  });
});
