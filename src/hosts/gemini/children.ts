import { mkdir, readdir, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../../core/hash/sha256.js";

/**
 * Which sessions have an `invoke_agent` child running. A subagent's tool calls
 * fire the parent session's BeforeTool/AfterTool hooks with the parent's
 * session id and nothing that tells them apart, so the only way to keep a
 * child's write_todos off the parent's list is to know a child is running:
 * BeforeTool on invoke_agent opens a marker, its AfterTool closes it. One
 * file per call (created exclusively), so parallel children never race on a
 * counter. Markers live in the temp folder: they mean something only while
 * the CLI process runs, and a real user prompt clears a session's leftovers.
 */

export interface ChildRuns {
  open(sessionId: string, toolInput: unknown): Promise<void>;
  close(sessionId: string, toolInput: unknown): Promise<void>;
  running(sessionId: string): Promise<boolean>;
  clear(sessionId: string): Promise<void>;
}

/** Where markers go by default. */
export function defaultChildRoot(): string {
  return join(tmpdir(), "todo-continuation-gemini-children");
}

function sessionFolder(root: string, sessionId: string): string {
  // Session ids are UUIDs; a hash keeps any other value a safe file name.
  return join(root, sha256Hex(sessionId).slice(0, 32));
}

function callKey(toolInput: unknown): string {
  return sha256Hex(JSON.stringify(toolInput ?? null)).slice(0, 16);
}

/** Marker files of one call: `<key>.<n>`. */
function markersOf(names: string[], key: string): string[] {
  return names.filter((n) => n.startsWith(`${key}.`)).sort();
}

export function fileChildRuns(root: string = defaultChildRoot()): ChildRuns {
  return {
    async open(sessionId, toolInput) {
      const dir = sessionFolder(root, sessionId);
      await mkdir(dir, { recursive: true });
      const key = callKey(toolInput);
      for (let n = 0; n < 1000; n++) {
        try {
          await writeFile(join(dir, `${key}.${String(n).padStart(3, "0")}`), "", { flag: "wx" });
          return;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        }
      }
      throw new Error("more than 1000 identical invoke_agent calls are open");
    },
    async close(sessionId, toolInput) {
      const dir = sessionFolder(root, sessionId);
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of markersOf(names, callKey(toolInput))) {
        try {
          await unlink(join(dir, name));
          return;
        } catch (error) {
          // Another hook closed this one first: take the next.
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        }
      }
    },
    async running(sessionId) {
      const names = await readdir(sessionFolder(root, sessionId)).catch(() => [] as string[]);
      return names.length > 0;
    },
    async clear(sessionId) {
      await rm(sessionFolder(root, sessionId), { recursive: true, force: true });
    },
  };
}
