import {
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { resolveScope } from "../../core/scope/scope.js";
import { parseTodoList } from "../../core/todo/parse.js";
import type { TodoList } from "../../core/types.js";
import { serializeTodoList } from "./documents.js";
import { createFileStore } from "./file-store.js";
import { scopePaths } from "./paths.js";

export interface FileStoreBenchOptions {
  /** Measured iterations of each variant. */
  iterations: number;
  /** Folder to work in (a fresh sub-folder is created and removed). */
  dir: string;
  /** Unmeasured iterations first, to warm caches and the JIT (default 10). */
  warmup?: number;
}

export interface FileStoreBenchResult {
  /** Microseconds per one-document `transact` update of the file store. */
  ours: number[];
  /** Microseconds per raw temp + write + fsync + rename + fsync(dir) of the same bytes. */
  raw: number[];
}

function elapsedMicros(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1000;
}

/** The baseline: the minimum a durable atomic replace of a file costs. */
function rawReplace(dir: string, name: string, bytes: Buffer): void {
  const path = join(dir, name);
  const temp = `${path}.tmp`;
  try {
    const fd = openSync(temp, "w");
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    // A refused write (no space) leaves no temporary behind, as the store's writer does.
    rmSync(temp, { force: true });
    throw error;
  }
  const dirFd = openSync(dir, "r");
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/** A realistic list: eight items, one moving forward per iteration. */
function listAt(iteration: number): TodoList {
  const todos: TodoList["todos"] = Array.from({ length: 8 }, (_, i) => ({
    content: `Step ${i + 1}: update the module and its tests (round ${iteration})`,
    status: i < iteration % 8 ? "completed" : i === iteration % 8 ? "in_progress" : "pending",
    id: String(i + 1),
  }));
  return { todos, phases: [], nextId: 9 };
}

/**
 * Measures a one-document `transact` update against the raw durable replace
 * of the same bytes, interleaved so both see the same disk conditions.
 * Returns per-iteration latencies; turning them into percentiles is the
 * caller's job.
 */
export async function benchFileStore(
  options: FileStoreBenchOptions,
): Promise<FileStoreBenchResult> {
  const { iterations } = options;
  if (!Number.isSafeInteger(iterations) || iterations < 1) {
    throw new RangeError(
      `benchFileStore: iterations must be a positive integer, got ${iterations}`,
    );
  }
  const warmup = options.warmup ?? 10;
  mkdirSync(options.dir, { recursive: true });
  const work = mkdtempSync(join(options.dir, "file-store-bench-"));
  const rawDir = join(work, "raw");
  mkdirSync(rawDir);
  const store = createFileStore({ root: join(work, "store") });
  const scope = resolveScope({ kind: "session", host: "bench", sessionId: "one" })!;
  const written = scopePaths(store.todoDir, scope).todos;
  const result: FileStoreBenchResult = { ours: [], raw: [] };
  try {
    for (let i = 0; i < warmup + iterations; i++) {
      const measured = i >= warmup;
      const list = listAt(i);
      // Exactly the bytes the store writes for this revision.
      const bytes = Buffer.from(serializeTodoList(parseTodoList(list), i + 1));
      const runOurs = async () => {
        const start = process.hrtime.bigint();
        await store.transact(scope, () => ({ todos: list, result: null }));
        if (measured) result.ours.push(elapsedMicros(start));
      };
      const runRaw = () => {
        const start = process.hrtime.bigint();
        rawReplace(rawDir, "list.json", bytes);
        if (measured) result.raw.push(elapsedMicros(start));
      };
      // Alternate which goes first, so neither always pays for the other's flush.
      if (i % 2 === 0) {
        await runOurs();
        runRaw();
      } else {
        runRaw();
        await runOurs();
      }
      if (i === 0 && !readFileSync(written).equals(bytes)) {
        throw new Error("benchFileStore: the raw variant would not write the store's bytes");
      }
    }
  } finally {
    await store.close();
    rmSync(work, { recursive: true, force: true });
  }
  return result;
}
