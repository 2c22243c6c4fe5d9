import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/**
 * Codex's own goal loop (`/goal`, app-server `thread/goal/set`, the model's
 * `create_goal`): while a thread's goal is active, Codex starts a new turn
 * toward it each time a turn ends. Our Stop hook must not stack a second
 * continuation on top of it. What the rollout shows of it (measured on
 * 0.169.0):
 *
 * - each goal turn opens with `event_msg` `task_started` whose
 *   `turn_attribution.turn_trigger` is `"goal"`;
 * - setting, pausing, completing or exhausting a goal writes `event_msg`
 *   `thread_goal_updated` with `goal.status` (`active`, `paused`, `blocked`,
 *   `usageLimited`, `budgetLimited`, `complete`); clearing one writes nothing.
 */

export interface HostGoal {
  active: boolean;
  /** The newest status the rollout recorded, or null when it recorded none. */
  status: string | null;
  /** The turn being stopped was started by the goal loop. */
  goalTurn: boolean;
}

/** How a goal status line starts its payload, as Codex writes it (compact JSON). */
export const GOAL_EVENT_MARKER = '"type":"thread_goal_updated"';

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function payloadOf(line: string): Record<string, unknown> | null {
  try {
    return record(record(JSON.parse(line))?.payload);
  } catch {
    return null;
  }
}

/** The status a `thread_goal_updated` line records, or null for any other line. */
export function goalStatusOf(line: string): string | null {
  const payload = payloadOf(line);
  if (payload?.type !== "thread_goal_updated") return null;
  const status = record(payload.goal)?.status;
  return typeof status === "string" ? status : null;
}

/** True when the rollout lines open `turnId` as a goal turn. */
export function isGoalTurn(lines: readonly string[], turnId: string | null): boolean {
  if (turnId === null) return false;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? "";
    if (!line.includes('"task_started"') || !line.includes(turnId)) continue;
    const payload = payloadOf(line);
    if (payload?.type !== "task_started") continue;
    const attribution = record(payload.turn_attribution);
    const id = attribution?.turn_id ?? payload.turn_id;
    if (id === turnId) return attribution?.turn_trigger === "goal";
  }
  return false;
}

/**
 * Whether a host goal owns continuation for the turn `turnId` is ending:
 * the turn is a goal turn, or the newest goal status is `active`.
 * `lastGoalLine` is the rollout's newest `thread_goal_updated` line (anywhere
 * in the file: it is written once, when the goal is set); `tail` is the end of
 * the rollout, which holds the current turn's start.
 */
export function hostGoal(
  lastGoalLine: string | null,
  tail: readonly string[],
  turnId: string | null,
): HostGoal {
  const status = lastGoalLine === null ? null : goalStatusOf(lastGoalLine);
  const goalTurn = isGoalTurn(tail, turnId);
  return { active: goalTurn || status === "active", status, goalTurn };
}

const CHUNK = 1024 * 1024;
/** Goal lines are short; a longer one is not ours to parse. */
const LINE_WINDOW = 64 * 1024;

/**
 * What an earlier scan of the same rollout found. A rollout only grows, so the
 * next scan reads only what was written since: without it, a session whose
 * rollout holds no goal line read the whole file at every stop (40 ms for
 * 54 MB, and long sessions grow past that).
 */
export interface LineMemo {
  /** The file scanned (device and inode): a rollout replaced is scanned whole again. */
  dev: number;
  ino: number;
  /** Every complete line before this offset was searched. */
  scanned: number;
  /** The newest complete line with the marker before `scanned` (null: none), and its offset. */
  line: string | null;
  at: number;
}

/** Where memos are kept between hook processes, by the file's path. */
export interface LineMemoStore {
  read(path: string): LineMemo | null;
  write(path: string, memo: LineMemo): void;
}

interface Found {
  line: string | null;
  at: number;
}

/**
 * The last line of a file that contains `marker`, read backwards in chunks so
 * a long rollout is never held in memory whole; null when there is none (or
 * the file is missing). With `memo`, only what was written since the last
 * scan is read. Read synchronously: the hook process that asks has nothing
 * else to do meanwhile, and an asynchronous read would start libuv's thread
 * pool for it.
 */
export async function lastLineWith(
  path: string,
  marker: string,
  memo?: LineMemoStore,
  /** Files up to this size are read whole without a memo: one chunk costs less than its upkeep. */
  memoFrom: number = CHUNK,
): Promise<string | null> {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  try {
    const info = fstatSync(fd);
    const size = info.size;
    const needle = Buffer.from(marker, "utf8");
    const read = (from: number, to: number) => {
      const buffer = Buffer.alloc(to - from);
      const bytesRead = readSync(fd, buffer, 0, buffer.length, from);
      return buffer.subarray(0, bytesRead);
    };
    /** The newest line whose marker starts at or after `low` and ends by `high`; undefined: none. */
    const search = (low: number, high: number): Found | undefined => {
      let end = high;
      while (end > low) {
        const start = Math.max(low, end - CHUNK);
        // Overlap the next chunk by the marker's length so a marker across the boundary is seen.
        const chunk = read(start, Math.min(high, end + needle.length - 1));
        const at = chunk.lastIndexOf(needle);
        if (at >= 0) {
          const position = start + at;
          const from = Math.max(0, position - LINE_WINDOW);
          const window = read(from, Math.min(size, position + LINE_WINDOW));
          const hit = position - from;
          const lineStart = window.lastIndexOf(0x0a, hit) + 1;
          const newline = window.indexOf(0x0a, hit);
          const lineEnd = newline < 0 ? window.length : newline;
          // A line longer than the window is not a goal line: no line, as if none were found.
          if (lineStart === 0 && from > 0) return { line: null, at: position };
          return {
            line: window.subarray(lineStart, lineEnd).toString("utf8"),
            at: from + lineStart,
          };
        }
        end = start;
      }
      return undefined;
    };
    // Complete lines end at the last newline; what follows may still be being written.
    let complete = 0;
    for (let end = size; end > 0; end = Math.max(0, end - CHUNK)) {
      const newline = read(Math.max(0, end - CHUNK), end).lastIndexOf(0x0a);
      if (newline >= 0) {
        complete = Math.max(0, end - CHUNK) + newline + 1;
        break;
      }
    }
    if (size <= memoFrom) memo = undefined;
    const prior = memo?.read(path) ?? null;
    const usable =
      prior !== null &&
      prior.dev === info.dev &&
      prior.ino === info.ino &&
      prior.scanned <= complete &&
      (prior.line === null ||
        read(prior.at, prior.at + Buffer.byteLength(prior.line)).toString("utf8") === prior.line);
    const low = usable ? Math.max(0, prior.scanned - (needle.length - 1)) : 0;
    const found: Found | null =
      search(low, complete) ?? (usable ? { line: prior.line, at: prior.at } : null);
    if (
      memo !== undefined &&
      (!usable || prior.scanned !== complete || prior.line !== found?.line)
    ) {
      memo.write(path, {
        dev: info.dev,
        ino: info.ino,
        scanned: complete,
        line: found?.line ?? null,
        at: found?.at ?? 0,
      });
    }
    // A marker in the line being written is the newest, as far as it goes.
    const partial = search(complete, size);
    return partial !== undefined ? partial.line : (found?.line ?? null);
  } finally {
    closeSync(fd);
  }
}
