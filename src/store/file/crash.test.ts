import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import { assertBuilt, BUILT_DIST } from "../../test-support/built.js";
import { createFileStore } from "./file-store.js";
import { scopePaths } from "./paths.js";

/**
 * A process killed (SIGKILL) in the middle of a decision's commit: at each
 * step between the state's rename and the log's append, and at random
 * moments. Whatever the moment, every nudge the log shows is one the state
 * counts, and no nudge is logged twice.
 */

const WORKER = join(import.meta.dirname, "test-support", "crash-worker.mjs");
const SCOPE = resolveScope({ kind: "cron", jobId: "crash" })!;
const roots: string[] = [];

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

async function freshStore(logLimit: number): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), "tc-crash-"));
  roots.push(root);
  const store = createFileStore({ root, logLimit });
  await store.transact(SCOPE, () => ({
    todos: {
      todos: [
        { content: "first", status: "pending" },
        { content: "second", status: "pending" },
      ],
      phases: [],
      nextId: 1,
    },
    result: null,
  }));
  await store.close();
  return root;
}

interface Exit {
  signal: NodeJS.Signals | null;
  code: number | null;
  stderr: string;
}

function runWorker(
  root: string,
  logLimit: number,
  idles: number,
  killAt: number,
  killAfterMs?: number,
): Promise<Exit> {
  const child = spawn(
    process.execPath,
    [WORKER, BUILT_DIST, root, String(logLimit), String(idles), String(killAt)],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let timer: NodeJS.Timeout | undefined;
  child.stdout.once("data", () => {
    // Timed from the first idle, not from the process start.
    if (killAfterMs !== undefined) timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

/** The log as the store reads it, and the state's nudge count, of the current episode. */
async function observe(root: string, logLimit: number) {
  const store = createFileStore({ root, logLimit });
  try {
    const { state } = await store.read(SCOPE);
    const episode = state.episode;
    const log = await store.readLog(SCOPE);
    const nudges = log.filter((e) => e.action === "inject" && e.episodeId === episode?.id);
    return { autoTurns: episode?.autoTurns ?? 0, nudges: nudges.map((e) => e.autoTurns), log };
  } finally {
    await store.close();
  }
}

/** Sequence numbers of the lines in the log file itself: each line is written once. */
function fileSeqs(root: string): number[] {
  const path = scopePaths(join(root, "todo"), SCOPE).log;
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => (JSON.parse(line) as { seq: number }).seq);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

describe("a decision's commit cut by SIGKILL (file store)", () => {
  it("at every step of three idles, the log counts exactly the nudges the state counts", async () => {
    assertBuilt("store/file/commit.js", "runtime/index.js");
    const logLimit = 1000;
    const root = await freshStore(logLimit);
    // One idle with an outcome is one commit of three steps: prepared,
    // state renamed, log appended.
    const stepsPerIdle = 3;
    const killed: string[] = [];
    for (let killAt = 1; killAt <= 3 * stepsPerIdle; killAt++) {
      const exit = await runWorker(root, logLimit, 3, killAt);
      expect(exit.signal, exit.stderr).toBe("SIGKILL");
      killed.push(/killed at (\S+)/.exec(exit.stderr)?.[1] ?? "?");
      const seen = await observe(root, logLimit);
      expect(seen.nudges).toEqual(range(1, seen.autoTurns));
    }
    expect(new Set(killed)).toEqual(new Set(["prepared", "document-renamed", "log-appended"]));
    // A clean run afterwards appends what a crash kept out of the file, once.
    const exit = await runWorker(root, logLimit, 2, 0);
    expect(exit.code, exit.stderr).toBe(0);
    const seen = await observe(root, logLimit);
    expect(seen.autoTurns).toBeGreaterThan(3);
    expect(seen.nudges).toEqual(range(1, seen.autoTurns));
    const seqs = fileSeqs(root);
    expect(seqs).toEqual(range(1, seqs.length));
    expect(seqs.length).toBe(seen.log.length);
  });

  it("killed at random moments, over log rotations, no nudge is logged twice or without its state", async () => {
    const logLimit = 6;
    const root = await freshStore(logLimit);
    let kills = 0;
    for (let round = 0; round < 25; round++) {
      const exit = await runWorker(root, logLimit, 1000, 0, 30 + Math.random() * 250);
      if (exit.signal === "SIGKILL") kills++;
      const seen = await observe(root, logLimit);
      // The newest `logLimit` entries: consecutive nudges ending at the state's count.
      expect(seen.log.length).toBeLessThanOrEqual(logLimit);
      const first = seen.nudges[0] ?? seen.autoTurns + 1;
      expect(seen.nudges).toEqual(range(first, seen.autoTurns));
    }
    expect(kills).toBeGreaterThan(0);
    // Enough nudges that the log was rotated several times meanwhile.
    expect((await observe(root, logLimit)).autoTurns).toBeGreaterThan(3 * logLimit);
    expect(existsSync(`${scopePaths(join(root, "todo"), SCOPE).log}.1`)).toBe(true);
    const seqs = fileSeqs(root);
    expect(seqs).toEqual(range(seqs[0] ?? 1, (seqs[0] ?? 1) + seqs.length - 1));
  });
});
