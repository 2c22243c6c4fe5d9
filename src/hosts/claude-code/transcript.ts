import type { TokenUsage } from "../../core/types.js";
import { usageFromAnthropic } from "../../runtime/classify.js";
import { readRegularFile } from "../hook-kit/bounded-read.js";

/**
 * What a Stop hook can learn from the session transcript (JSONL, one entry per
 * content block). Claude Code writes it in batches and does not flush it
 * before Stop hooks run, so it is never the source of the todo list; it only
 * supplies facts that are old by the time a Stop fires (an interrupt, earlier
 * responses' usage) and a fallback stop reason.
 */
export interface TranscriptFacts {
  /** The user interrupted a turn at or after `since`. */
  interrupted: boolean;
  /** Usage summed over the distinct main-thread model responses at or after `since`. */
  usage: TokenUsage;
  /** `stop_reason` of the newest main-thread response written so far, if any. */
  lastStopReason: string | null;
  /**
   * An AskUserQuestion call at or after `since` that got no answer: no result,
   * or an error result (declined, dismissed, or not available in this mode).
   */
  questionPending: boolean;
  /**
   * A `/goal` will drive the session: the newest `goal_status` entry neither
   * met nor failed (Claude Code restores a goal on `--resume` by the same
   * rule), and the goal is not paused. Not windowed by `since`: a goal
   * outlives the turns it spans.
   */
  hostGoalActive: boolean;
  /**
   * The model paused the goal (a successful `PauseGoal` call since the newest
   * `goal_status` entry) and no user prompt came after: Claude Code swallows
   * the goal's own Stop check until the user's next message, so the goal does
   * not drive the session, and the model has said it needs the user.
   */
  hostGoalPaused: boolean;
  /** `message.model` of the newest main-thread response (prices the turn); absent when none names one. */
  model?: string;
}

/** Claude Code's tool for asking the user a multiple-choice question. */
export const ASK_USER_QUESTION = "AskUserQuestion";

/** Claude Code's tool for pausing the session goal until the user's next message. */
export const PAUSE_GOAL = "PauseGoal";

const INTERRUPT_MARKER = "[Request interrupted by user";

/**
 * Whether a `goal_status` attachment leaves a goal set. Claude Code 2.1.332
 * writes four kinds, and no other status: setting a goal `met: false` with
 * `sentinel`; each unmet check `met: false` with a `reason`; a met goal
 * `met: true`, and `/goal clear` (or a goal cleared after an unrecoverable
 * error) `met: true` with `sentinel`; a goal judged impossible `failed: true`.
 * A pause is no `goal_status` entry: it is the model's `PauseGoal` call (see
 * {@link TranscriptFacts.hostGoalPaused}), and while it lasts no check writes one.
 */
function goalSetAfter(status: Record<string, unknown>): boolean {
  return (
    status.met !== true &&
    status.failed !== true &&
    typeof status.condition === "string" &&
    status.condition !== ""
  );
}

/**
 * Bytes read from the end of a transcript: enough for any one episode, bounded
 * for huge files. An active goal writes a `goal_status` entry at every stop, so
 * its newest one lies in the tail unless a single turn wrote more than this.
 */
export const TRANSCRIPT_TAIL_BYTES = 8 * 1024 * 1024;

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function texts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const block of content) {
    const b = record(block);
    if (b?.type === "text" && typeof b.text === "string") out.push(b.text);
  }
  return out;
}

/**
 * A user entry the user typed: text, not an interrupt marker, and none of the
 * entries Claude Code writes in the user's name (a hook's message, `isMeta`;
 * a compaction's summary).
 */
function isUserPrompt(entry: Record<string, unknown>, content: unknown): boolean {
  if (entry.isMeta === true || entry.isCompactSummary === true) return false;
  if (entry.isVisibleInTranscriptOnly === true) return false;
  const all = texts(content);
  return all.length > 0 && !all.every((t) => t.startsWith(INTERRUPT_MARKER));
}

function blocks(content: unknown, type: string): Record<string, unknown>[] {
  if (!Array.isArray(content)) return [];
  return content.map(record).filter((b): b is Record<string, unknown> => b?.type === type);
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    total: a.total + b.total,
  };
}

export function emptyUsage(): TokenUsage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

/**
 * Reads transcript lines. Entries from subagents (`isSidechain`) and entries
 * without a readable timestamp are ignored for everything windowed by `since`
 * (ms since the epoch); malformed lines are skipped.
 */
export function analyzeTranscript(lines: readonly string[], since: number): TranscriptFacts {
  const facts: TranscriptFacts = {
    interrupted: false,
    usage: emptyUsage(),
    lastStopReason: null,
    questionPending: false,
    hostGoalActive: false,
    hostGoalPaused: false,
  };
  const counted = new Set<string>();
  /** AskUserQuestion calls in the window still waiting for a good answer. */
  const questions = new Set<string>();
  let goalSet = false;
  /** PauseGoal calls since the newest goal entry, still waiting for their result. */
  const pauses = new Set<string>();
  for (const line of lines) {
    if (line.trim() === "") continue;
    let entry: Record<string, unknown> | null;
    try {
      entry = record(JSON.parse(line));
    } catch {
      continue;
    }
    if (entry === null || entry.isSidechain === true) continue;
    const attachment = entry.type === "attachment" ? record(entry.attachment) : null;
    if (attachment?.type === "goal_status") {
      goalSet = goalSetAfter(attachment);
      // A new goal, an unmet check, an end: none of them is paused.
      facts.hostGoalPaused = false;
      pauses.clear();
    }
    const message = record(entry.message);
    if (message === null) continue;
    const at = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) : Number.NaN;
    const inWindow = Number.isFinite(at) && at >= since;
    if (entry.type === "user") {
      if (inWindow && texts(message.content).some((t) => t.startsWith(INTERRUPT_MARKER))) {
        facts.interrupted = true;
      }
      const results = blocks(message.content, "tool_result");
      for (const block of results) {
        const id = block.tool_use_id;
        if (typeof id !== "string" || block.is_error === true) continue;
        questions.delete(id);
        if (pauses.delete(id)) facts.hostGoalPaused = true;
      }
      // The user's own prompt lifts a pause (Claude Code clears it on every prompt it sends).
      if (results.length === 0 && isUserPrompt(entry, message.content)) {
        facts.hostGoalPaused = false;
        pauses.clear();
      }
      continue;
    }
    if (entry.type !== "assistant") continue;
    if (inWindow) {
      for (const block of blocks(message.content, "tool_use")) {
        if (block.name === ASK_USER_QUESTION && typeof block.id === "string")
          questions.add(block.id);
      }
    }
    if (goalSet) {
      for (const block of blocks(message.content, "tool_use")) {
        if (block.name === PAUSE_GOAL && typeof block.id === "string") pauses.add(block.id);
      }
    }
    if (typeof message.stop_reason === "string") facts.lastStopReason = message.stop_reason;
    // Claude Code writes its own notices as "<synthetic>" responses: no model ran them.
    if (
      typeof message.model === "string" &&
      message.model !== "" &&
      !message.model.startsWith("<")
    ) {
      facts.model = message.model;
    }
    const id =
      typeof message.id === "string"
        ? message.id
        : typeof entry.uuid === "string"
          ? entry.uuid
          : null;
    if (!inWindow || id === null || counted.has(id) || record(message.usage) === null) continue;
    counted.add(id);
    facts.usage = addUsage(facts.usage, usageFromAnthropic(message.usage));
  }
  facts.questionPending = questions.size > 0;
  facts.hostGoalPaused = goalSet && facts.hostGoalPaused;
  facts.hostGoalActive = goalSet && !facts.hostGoalPaused;
  return facts;
}

/**
 * The last `maxBytes` of a transcript as lines, the first (possibly cut) line
 * dropped when the file was longer. A missing file, or a path that is not a
 * regular file (a device, a FIFO, a folder), is no lines.
 */
export async function readTranscriptTail(
  path: string,
  maxBytes: number = TRANSCRIPT_TAIL_BYTES,
): Promise<string[]> {
  const read = await readRegularFile(path, { maxBytes, mode: "tail" });
  if (read.status !== "read") return [];
  const lines = read.bytes.toString("utf8").split("\n");
  if (read.truncated) lines.shift();
  return lines;
}
