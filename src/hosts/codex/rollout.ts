import type { TokenUsage } from "../../core/types.js";
import { decodeTurnTotals, encodeTurnId } from "../claude-code/spend.js";

/**
 * Token spend from Codex's rollout file (the session transcript, JSONL). Each
 * model response is followed by an `event_msg` of type `token_count` whose
 * `info.total_token_usage` is the session's running total, so the newest one
 * is all a Stop needs. As with Claude Code, the file may lag behind: each Stop
 * is charged the growth since the total the previous Stop saw (see
 * ../claude-code/spend.ts), which that total travels in the outcome's turn id.
 */

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * The newest running total in the rollout lines, or null when none is written
 * yet. `input_tokens` includes the cached part, which is split out so `input`
 * means uncached input as everywhere else.
 */
export function latestTotals(lines: readonly string[]): TokenUsage | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? "";
    if (!line.includes('"token_count"')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const payload = record(record(entry)?.payload);
    if (payload?.type !== "token_count") continue;
    const totals = record(record(payload.info)?.total_token_usage);
    if (totals === null) continue;
    const cacheRead = count(totals.cached_input_tokens);
    const cacheWrite = count(totals.cache_write_input_tokens);
    const input = Math.max(0, count(totals.input_tokens) - cacheRead);
    const output = count(totals.output_tokens);
    return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
  }
  return null;
}

/**
 * The model of the newest turn in a rollout tail: Codex writes a
 * `turn_context` line with `payload.model` at the start of every turn.
 * Undefined when the tail holds none.
 */
export function latestModel(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? "";
    if (!line.includes('"turn_context"')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const top = record(entry);
    if (top?.type !== "turn_context") continue;
    const model = record(top.payload)?.model;
    if (typeof model === "string" && model !== "") return model;
  }
  return undefined;
}

const SEPARATOR = "@";

/**
 * The outcome id a Stop records: fresh on every Stop (Codex keeps one
 * `turn_id` across the Stops it continues, and the engine must see each as a
 * new outcome), carrying the running totals and the Codex turn it ended.
 */
export function encodeOutcomeId(codexTurnId: string | null, totals: TokenUsage): string {
  return `${encodeTurnId(totals)}${SEPARATOR}${codexTurnId ?? ""}`;
}

/** What an outcome id recorded: the totals (null for foreign ids) and the Codex turn. */
export function decodeOutcomeId(id: string | null | undefined): {
  totals: TokenUsage | null;
  codexTurnId: string | null;
} {
  if (typeof id !== "string") return { totals: null, codexTurnId: null };
  const at = id.indexOf(SEPARATOR);
  if (at < 0) return { totals: decodeTurnTotals(id), codexTurnId: null };
  const turn = id.slice(at + 1);
  return { totals: decodeTurnTotals(id.slice(0, at)), codexTurnId: turn === "" ? null : turn };
}
