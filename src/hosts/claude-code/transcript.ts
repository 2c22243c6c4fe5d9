import type { TokenUsage } from "../../core/types.js";
import { usageFromAnthropic } from "../../runtime/classify.js";
import { readRegularFile } from "../bounded-read.js";

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
   * A `/goal` is active: the newest `goal_status` entry neither met nor failed
   * (Claude Code restores a goal on `--resume` by the same rule). Not windowed
   * by `since`: a goal outlives the turns it spans.
   */
  hostGoalActive: boolean;
}

/** Claude Code's tool for asking the user a multiple-choice question. */
export const ASK_USER_QUESTION = "AskUserQuestion";

const INTERRUPT_MARKER = "[Request interrupted by user";

/**
 * Whether a `goal_status` attachment leaves a goal active. Setting a goal
 * writes `met: false` (with `sentinel`), each unmet check `met: false`, a met
 * goal or `/goal clear` `met: true`, a goal judged impossible `failed: true`.
 */
function goalActiveAfter(status: Record<string, unknown>): boolean {
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
  };
  const counted = new Set<string>();
  /** AskUserQuestion calls in the window still waiting for a good answer. */
  const questions = new Set<string>();
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
    if (attachment?.type === "goal_status") facts.hostGoalActive = goalActiveAfter(attachment);
    const message = record(entry.message);
    if (message === null) continue;
    const at = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) : Number.NaN;
    const inWindow = Number.isFinite(at) && at >= since;
    if (entry.type === "user") {
      if (inWindow && texts(message.content).some((t) => t.startsWith(INTERRUPT_MARKER))) {
        facts.interrupted = true;
      }
      for (const block of blocks(message.content, "tool_result")) {
        const id = block.tool_use_id;
        if (typeof id === "string" && block.is_error !== true) questions.delete(id);
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
    if (typeof message.stop_reason === "string") facts.lastStopReason = message.stop_reason;
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
