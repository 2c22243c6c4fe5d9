import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { readRegularFile } from "../hook-kit/bounded-read.js";
import { userHome } from "../hook-kit/user-dir.js";
import { claudeConfigDir } from "./config-dir.js";
import { type TaskFileEntry, todoFromTaskFile } from "./todos.js";

/** A task file larger than this is not read (one task is a few hundred bytes). */
export const MAX_TASK_FILE_BYTES = 1024 * 1024;

/** A single path segment that cannot climb out of the folder it is joined to. */
const SAFE_SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,200}$/;

/**
 * The folder where Claude Code keeps a session's tasks, one JSON file per task:
 * `<config>/tasks/<list>/`, with `<config>` = `$CLAUDE_CONFIG_DIR` or
 * `~/.claude`, and `<list>` = `$CLAUDE_CODE_TASK_LIST_ID` (a list shared on
 * purpose) or the session id. Null when the list name is not a plain file name.
 */
export function taskFolder(
  sessionId: string,
  env: Record<string, string | undefined>,
  home: string = userHome(env),
): string | null {
  const config = claudeConfigDir({ ...env, HOME: home });
  const list = env.CLAUDE_CODE_TASK_LIST_ID?.trim() ? env.CLAUDE_CODE_TASK_LIST_ID : sessionId;
  if (!SAFE_SEGMENT.test(list)) return null;
  return join(config, "tasks", list);
}

/**
 * Reads every `<id>.json` in a task folder. Returns null when the folder does
 * not exist (the session never used the Task tools, or the host keeps its
 * tasks elsewhere); an unreadable or malformed file maps to null, never throws.
 */
export async function readTaskFolder(dir: string): Promise<Map<string, TaskFileEntry> | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
  const out = new Map<string, TaskFileEntry>();
  await Promise.all(
    names
      .filter((name) => name.endsWith(".json") && !name.startsWith("."))
      .map(async (name) => {
        const id = name.slice(0, -".json".length);
        let entry: TaskFileEntry = null;
        try {
          // Only a regular file of sane size: a device or FIFO in the folder is no task.
          const read = await readRegularFile(join(dir, name), {
            maxBytes: MAX_TASK_FILE_BYTES,
            mode: "whole",
          });
          if (read.status !== "read") throw new Error(`${name}: ${read.status}`);
          const parsed = todoFromTaskFile(JSON.parse(read.bytes.toString("utf8")));
          // A file whose inner id disagrees with its name is not trusted.
          entry = parsed === null || parsed === "deleted" || parsed.id === id ? parsed : null;
        } catch {
          entry = null;
        }
        out.set(id, entry);
      }),
  );
  return out;
}
