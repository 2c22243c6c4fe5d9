import type { TokenUsage } from "../../core/types.js";
import { readRegularFile } from "../hook-kit/bounded-read.js";

/**
 * Token spend of a Gemini CLI turn, from the session file the CLI records
 * (`transcript_path` in every hook payload). The CLI writes each model reply
 * there with its `tokens` (`input`, `output`, `cached`, `thoughts`, `tool`)
 * before the turn's AfterAgent. Gemini CLI 0.61 writes JSON Lines (a message
 * again whenever it changes, the last copy counts); older releases one JSON
 * document with a `messages` array. Both are read.
 */

/** A session file larger than this is not read: its spend counts as unknown. */
export const MAX_SESSION_FILE_BYTES = 64 * 1024 * 1024;

export interface RecordedMessage {
  id: string;
  type: unknown;
  timestamp: unknown;
  tokens: unknown;
}

function isMessage(value: unknown): value is RecordedMessage {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { id?: unknown }).id === "string" &&
    "type" in value
  );
}

/** The messages of a session file's text, last copy of each id winning, in first-seen order. */
export function sessionMessages(text: string): RecordedMessage[] {
  const byId = new Map<string, RecordedMessage>();
  const add = (value: unknown) => {
    if (isMessage(value)) byId.set(value.id, value);
  };
  const whole = (() => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  })();
  const messages = (whole as { messages?: unknown } | undefined)?.messages;
  if (Array.isArray(messages)) {
    for (const message of messages) add(message);
    return [...byId.values()];
  }
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      add(JSON.parse(line));
    } catch {
      // A line torn by a write in progress: not a message yet.
    }
  }
  return [...byId.values()];
}

/** A recorded count as a whole number; anything else (negative, not a number, absurd) is 0. */
const count = (value: unknown): number =>
  typeof value === "number" && value > 0 && Number.isSafeInteger(Math.floor(value))
    ? Math.floor(value)
    : 0;

/**
 * What the model replies recorded at or after `since` (ms) spent: uncached
 * and tool-use prompt tokens as input, output and thinking as output, cached
 * prompt tokens as cache reads. Null when no reply since then carries tokens.
 */
export function spendOf(messages: readonly RecordedMessage[], since: number): TokenUsage | null {
  let input = 0;
  let output = 0;
  let cacheRead = 0;
  let seen = false;
  for (const message of messages) {
    if (message.type !== "gemini" || typeof message.tokens !== "object" || message.tokens === null)
      continue;
    const at = typeof message.timestamp === "string" ? Date.parse(message.timestamp) : Number.NaN;
    // A reply without a readable time is not charged: it cannot be placed in a turn.
    if (!(at >= since)) continue;
    const t = message.tokens as Record<string, unknown>;
    const cached = count(t.cached);
    input += Math.max(0, count(t.input) - cached) + count(t.tool);
    output += count(t.output) + count(t.thoughts);
    cacheRead += cached;
    seen = true;
  }
  if (!seen) return null;
  return { input, output, cacheRead, cacheWrite: 0, total: input + output + cacheRead };
}

/** The model of the newest reply recorded at or after `since` (ms), for pricing; undefined when none names one. */
export function modelOf(messages: readonly RecordedMessage[], since: number): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as RecordedMessage;
    if (message.type !== "gemini") continue;
    const at = typeof message.timestamp === "string" ? Date.parse(message.timestamp) : Number.NaN;
    if (!(at >= since)) break;
    const model = (message as { model?: unknown }).model;
    if (typeof model === "string" && model !== "") return model;
  }
  return undefined;
}

/**
 * The messages of the session file at `path`; null when there is none to
 * read: no path, no file (recording off), not a regular file, or over the cap.
 */
export async function readSessionMessages(path: string | null): Promise<RecordedMessage[] | null> {
  if (path === null) return null;
  let read: Awaited<ReturnType<typeof readRegularFile>>;
  try {
    read = await readRegularFile(path, { maxBytes: MAX_SESSION_FILE_BYTES, mode: "whole" });
  } catch {
    // Unreadable (permissions, a path from elsewhere): the same as no file.
    return null;
  }
  if (read.status !== "read") return null;
  return sessionMessages(read.bytes.toString("utf8"));
}

/** The spend recorded in the session file at `path` since `since`; null when unknown. */
export async function readSessionSpend(
  path: string | null,
  since: number,
): Promise<TokenUsage | null> {
  const messages = await readSessionMessages(path);
  return messages === null ? null : spendOf(messages, since);
}
