import { type ChildProcess, spawn } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseContinuationState } from "../../core/engine/state.js";
import { parseTodoList } from "../../core/todo/parse.js";
import { createFileStore } from "./file-store.js";
import { scopePaths } from "./paths.js";
import {
  counterOf,
  generationList,
  generationOf,
  generationState,
  SHARED_SCOPE,
} from "./test-support/child.js";
import { transpileForChild } from "./test-support/transpile.js";

/** Lets the event loop turn, so a store releases the lock it keeps between transactions. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Whether anything, a dangling symlink included, exists at `path`. */
function entryExists(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

let compiled: { file: string; dir: string };
const roots: string[] = [];

function freshRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "tc-processes-"));
  roots.push(root);
  return root;
}

beforeAll(() => {
  compiled = transpileForChild(join(import.meta.dirname, "test-support", "child.ts"));
});

afterAll(() => {
  for (const dir of [compiled.dir, ...roots]) rmSync(dir, { recursive: true, force: true });
});

function startChild(mode: string, root: string, count = 0): ChildProcess {
  return spawn(process.execPath, [compiled.file, mode, root, String(count)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

describe("the file store across processes", () => {
  it("loses no increment: 4 processes x 250 increments on one scope make exactly 1000", async () => {
    const root = freshRoot();
    const children = Array.from({ length: 4 }, () => startChild("count", root, 250));
    const results = await Promise.all(children.map(exited));
    for (const result of results) expect(result).toEqual({ code: 0, stderr: "" });
    const store = createFileStore({ root });
    const snapshot = await store.read(SHARED_SCOPE);
    expect(counterOf(snapshot.todos)).toBe(1000);
    expect(snapshot.todosRevision).toBe(1000);
    const paths = scopePaths(store.todoDir, SHARED_SCOPE);
    expect(entryExists(paths.lock)).toBe(false);
  }, 180_000);

  it("releases its lock when the process exits straight after a transaction", async () => {
    const root = freshRoot();
    const result = await exited(startChild("exit", root));
    expect(result).toEqual({ code: 0, stderr: "" });
    const store = createFileStore({ root });
    expect(entryExists(scopePaths(store.todoDir, SHARED_SCOPE).lock)).toBe(false);
    expect(counterOf((await store.read(SHARED_SCOPE)).todos)).toBe(1);
  });

  it("survives 50 SIGKILLs mid-write: files stay whole, old or new, and the lock is recovered", async () => {
    const root = freshRoot();
    const store = createFileStore({ root });
    const paths = scopePaths(store.todoDir, SHARED_SCOPE);
    let acknowledged = 0;
    let locksRecovered = 0;
    for (let round = 0; round < 50; round++) {
      const child = startChild("write", root);
      const done = exited(child);
      let seen = acknowledged;
      let buffered = "";
      const firstWrite = new Promise<void>((resolve) => {
        child.stdout?.on("data", (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split("\n");
          buffered = lines.pop() ?? "";
          for (const line of lines) seen = Math.max(seen, Number(line));
          resolve();
        });
      });
      await Promise.race([firstWrite, done]);
      // Kill at a random moment within the next few writes.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 15));
      child.kill("SIGKILL");
      const { stderr } = await done;
      expect(stderr).toBe("");
      acknowledged = seen;

      // Every file is whole JSON holding the acknowledged generation or the one in flight.
      const todosText = readFileSync(paths.todos, "utf8");
      const stateText = readFileSync(paths.state, "utf8");
      const todos = parseTodoList(JSON.parse(todosText));
      const state = parseContinuationState(JSON.parse(stateText));
      const todosGeneration = generationOf(todos);
      expect(todosGeneration).not.toBeNull();
      expect([acknowledged, acknowledged + 1]).toContain(todosGeneration);
      expect(todos).toEqual(generationList(todosGeneration!));
      const stateGeneration = state.lastUserTurnAt ?? 0;
      expect([acknowledged, acknowledged + 1]).toContain(stateGeneration);
      // The list is renamed into place before the state, never after.
      expect(stateGeneration).toBeLessThanOrEqual(todosGeneration!);
      expect(state).toEqual(generationState(stateGeneration, state));

      // A lock the killed child held is taken over; its temporaries go with it.
      if (entryExists(paths.lock)) locksRecovered++;
      const generation = await store.transact(SHARED_SCOPE, (snapshot) => ({
        result: generationOf(snapshot.todos),
      }));
      expect(generation).toBe(todosGeneration);
      await settle();
      expect(entryExists(paths.lock)).toBe(false);
      const leftovers = [
        ...readdirSync(join(store.todoDir, "cron")),
        ...readdirSync(join(store.todoDir, ".state", "cron")),
      ].filter((name) => name.endsWith(".tmp") || name.endsWith(".steal"));
      expect(leftovers).toEqual([]);
      acknowledged = Math.max(acknowledged, todosGeneration!);
    }
    expect(acknowledged).toBeGreaterThanOrEqual(50);
    // Most kills land while the child holds the lock; the recovery path must have run.
    expect(locksRecovered).toBeGreaterThan(0);
  }, 180_000);
});
