import { createRequire } from "node:module";
import { sha256Hex } from "../../core/hash/sha256.js";
import { privateCacheDir, readPrivateFile, writePrivateFile } from "../hook-kit/private-cache.js";
import type { LineMemo, LineMemoStore } from "./goal.js";

// `node:fs` through require: an ES module import builds its whole namespace (streams included).
const fs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");

/** Memos of rollouts not scanned for this long are removed when a new one is written. */
const KEEP_MS = 30 * 24 * 60 * 60 * 1000;

function isMemo(value: unknown, path: string): value is LineMemo & { path: string } {
  const memo = value as Record<string, unknown> | null;
  return (
    typeof memo === "object" &&
    memo !== null &&
    memo.path === path &&
    Number.isSafeInteger(memo.dev) &&
    Number.isSafeInteger(memo.ino) &&
    Number.isSafeInteger(memo.scanned) &&
    (memo.scanned as number) >= 0 &&
    Number.isSafeInteger(memo.at) &&
    (memo.at as number) >= 0 &&
    (memo.line === null || typeof memo.line === "string")
  );
}

/**
 * What the Codex hook's goal scans found, one small file per rollout in the
 * user's cache folder (`todo-continuation/codex-rollouts`), so each stop reads
 * only what the rollout gained since the last. A memo that cannot be read, or
 * names another file, is no memo; one that cannot be written costs the next
 * stop a longer scan, nothing else.
 */
export function rolloutMemoStore(
  env: Record<string, string | undefined>,
): LineMemoStore | undefined {
  const folder = privateCacheDir(env, "codex-rollouts");
  if (folder === null) return undefined;
  const nameOf = (path: string) => `${sha256Hex(path).slice(0, 32)}.json`;
  /** Whether a memo file was there when read: a stop reads before it writes. */
  const present = new Map<string, boolean>();
  return {
    read(path) {
      const bytes = readPrivateFile(folder, nameOf(path));
      present.set(path, bytes !== undefined);
      if (bytes === undefined) return null;
      try {
        const memo = JSON.parse(bytes.toString("utf8")) as unknown;
        if (!isMemo(memo, path)) return null;
        const { dev, ino, scanned, line, at } = memo;
        return { dev, ino, scanned, line, at };
      } catch {
        return null;
      }
    },
    write(path, memo) {
      const name = nameOf(path);
      const isNew = !(present.get(path) ?? readPrivateFile(folder, name) !== undefined);
      present.set(path, true);
      try {
        const now = Date.now();
        writePrivateFile(
          folder,
          name,
          JSON.stringify({ path, ...memo }),
          // A new session's first memo sweeps those of sessions long gone.
          isNew
            ? (other) =>
                other.endsWith(".json") &&
                now -
                  (fs.statSync(`${folder}/${other}`, { throwIfNoEntry: false })?.mtimeMs ?? now) >
                  KEEP_MS
            : undefined,
        );
      } catch {
        // Not written: the next stop scans further back, that is all.
      }
    },
  };
}
