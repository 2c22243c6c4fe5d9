import { randomHex } from "../../core/hash/random-hex.js";
import type { TokenUsage } from "../../core/types.js";

/**
 * Token spend per Stop, from a transcript that lags behind. A Stop hook sees
 * the responses flushed so far, not necessarily the latest, so it cannot sum
 * "the responses since the previous Stop". Instead each Stop measures the
 * running total since the last real user turn and is charged the difference
 * from the total the previous Stop measured: a response missed now is charged
 * at the next Stop, none is charged twice. The previous total travels in the
 * recorded outcome's turn id, so it is persisted atomically with the state and
 * forgotten with it when a real user turn clears the outcome.
 */

const PREFIX = "cc";

/** A fresh turn id carrying the running totals measured at this Stop. */
export function encodeTurnId(totals: TokenUsage, nonce: string = randomHex(6)): string {
  const parts = [totals.input, totals.output, totals.cacheRead, totals.cacheWrite].map((n) =>
    Math.max(0, Math.floor(n)).toString(36),
  );
  return `${PREFIX}:${nonce}:${parts.join(".")}`;
}

/** The running totals a previous Stop recorded, or null for any other turn id. */
export function decodeTurnTotals(turnId: string | null | undefined): TokenUsage | null {
  if (typeof turnId !== "string") return null;
  const match = /^cc:[0-9a-z]+:([0-9a-z]+)\.([0-9a-z]+)\.([0-9a-z]+)\.([0-9a-z]+)$/.exec(turnId);
  if (match === null) return null;
  const [input, output, cacheRead, cacheWrite] = match.slice(1).map((p) => Number.parseInt(p, 36));
  const values = [input, output, cacheRead, cacheWrite] as number[];
  if (!values.every((v) => Number.isSafeInteger(v) && v >= 0)) return null;
  const [i, o, r, w] = values as [number, number, number, number];
  return { input: i, output: o, cacheRead: r, cacheWrite: w, total: i + o + r + w };
}

/**
 * What this Stop is charged: the growth of each figure since the previous
 * Stop's totals (all of it when there is none, which can only over-count).
 * A figure that shrank (a truncated read) is charged nothing.
 */
export function spendSince(current: TokenUsage, previous: TokenUsage | null): TokenUsage {
  const diff = (now: number, before: number | undefined) => Math.max(0, now - (before ?? 0));
  const input = diff(current.input, previous?.input);
  const output = diff(current.output, previous?.output);
  const cacheRead = diff(current.cacheRead, previous?.cacheRead);
  const cacheWrite = diff(current.cacheWrite, previous?.cacheWrite);
  return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}
