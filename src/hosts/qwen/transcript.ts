import type { TokenUsage } from "../../core/types.js";
import type { TranscriptFacts } from "../claude-code/transcript.js";

/**
 * What a Stop hook reads from Qwen Code's session file
 * (`~/.qwen/projects/<project>/chats/<session>.jsonl`, the payload's
 * `transcript_path`). Qwen writes each model reply there, with Gemini-style
 * `usageMetadata`, before its Stop hooks run (measured on 0.24.4). Only the
 * spend is read: Qwen runs no Stop after an interrupt, and it has no goal
 * entries or question tool this integration acts on.
 */

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/** One reply's `usageMetadata`: `promptTokenCount` includes the cached part. */
export function usageFromQwen(metadata: unknown): TokenUsage {
  const m = (typeof metadata === "object" && metadata !== null ? metadata : {}) as Record<
    string,
    unknown
  >;
  const prompt = num(m.promptTokenCount);
  const cacheRead = Math.min(prompt, num(m.cachedContentTokenCount));
  const output = num(m.candidatesTokenCount) + num(m.thoughtsTokenCount);
  const total = num(m.totalTokenCount) || prompt + output;
  return { input: prompt - cacheRead, output, cacheRead, cacheWrite: 0, total };
}

/** Spend of the replies written at or after `since` (ms since the epoch); torn lines are skipped. */
export function analyzeQwenTranscript(lines: readonly string[], since: number): TranscriptFacts {
  const usage: TokenUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  const seen = new Set<string>();
  for (const line of lines) {
    if (!line.includes('"usageMetadata"')) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (entry === null || typeof entry !== "object" || entry.type !== "assistant") continue;
    const at = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) : Number.NaN;
    const id = typeof entry.uuid === "string" ? entry.uuid : null;
    if (!(at >= since) || id === null || seen.has(id)) continue;
    seen.add(id);
    const one = usageFromQwen(entry.usageMetadata);
    usage.input += one.input;
    usage.output += one.output;
    usage.cacheRead += one.cacheRead;
    usage.total += one.total;
  }
  return {
    interrupted: false,
    usage,
    lastStopReason: null,
    questionPending: false,
    hostGoalActive: false,
    hostGoalPaused: false,
  };
}
