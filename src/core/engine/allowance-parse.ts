import { formatCount, formatDuration, formatUsd, plural } from "../explain/numbers.js";
import type { Allowance } from "../types.js";
import { noAllowance } from "./allowance.js";

/** What `--add` takes, in the order the note lists them. */
export const ADD_KEYS = ["nudges", "tokens", "time", "cost"] as const;
type AddKey = (typeof ADD_KEYS)[number];

const TOKEN_UNITS: Record<string, number> = { "": 1, k: 1_000, m: 1_000_000 };
const TIME_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000 };

/** A bad `--add`: the message names the piece that is wrong. */
export class AllowanceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AllowanceError";
  }
}

function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** A decimal number as written (no exponent, no sign, no hex): "10", "2.5", ".5". */
function decimal(text: string): number | null {
  return /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : null;
}

function wholeNumber(piece: string, value: string): number {
  if (!/^\d+$/.test(value))
    throw new AllowanceError(`--add ${piece}: ${quote(value)} is not a whole number`);
  return checkSafe(piece, Number(value));
}

function checkSafe(piece: string, n: number): number {
  if (!Number.isSafeInteger(n)) throw new AllowanceError(`--add ${piece}: too large`);
  return n;
}

function tokens(piece: string, value: string): number {
  const match = /^(.*?)([km]?)$/i.exec(value) as RegExpExecArray;
  const n = decimal(match[1] as string);
  const unit = TOKEN_UNITS[(match[2] as string).toLowerCase()] as number;
  if (n === null) {
    throw new AllowanceError(
      `--add ${piece}: ${quote(value)} is not a number of tokens (such as 50000, 200k or 1.5m)`,
    );
  }
  const count = n * unit;
  if (!Number.isInteger(count)) {
    throw new AllowanceError(`--add ${piece}: ${quote(value)} is not a whole number of tokens`);
  }
  return checkSafe(piece, count);
}

function time(piece: string, value: string): number {
  const match = /^(.*?)([smh])$/i.exec(value);
  const n = match === null ? null : decimal(match[1] as string);
  if (match === null || n === null) {
    throw new AllowanceError(
      `--add ${piece}: ${quote(value)} is not a time such as 90s, 30m or 2h (the unit is needed)`,
    );
  }
  const ms = n * (TIME_UNITS[(match[2] as string).toLowerCase()] as number);
  if (!Number.isInteger(ms)) {
    throw new AllowanceError(
      `--add ${piece}: ${quote(value)} is not a whole number of milliseconds`,
    );
  }
  return checkSafe(piece, ms);
}

function cost(piece: string, value: string): number {
  const n = decimal(value.startsWith("$") ? value.slice(1) : value);
  if (n === null || !Number.isFinite(n)) {
    throw new AllowanceError(
      `--add ${piece}: ${quote(value)} is not an amount of USD such as 2.50`,
    );
  }
  return n;
}

/**
 * Reads `nudges=10,tokens=200k,time=30m,cost=2.50` (any subset, any order,
 * each at most once). Tokens take k and m; time needs s, m or h; cost is USD.
 * Throws an `AllowanceError` naming the first piece that is wrong.
 */
export function parseAllowance(text: string): Allowance {
  if (text.trim() === "") {
    throw new AllowanceError(
      `--add needs something to add, such as nudges=10,tokens=200k,time=30m`,
    );
  }
  const out = noAllowance();
  const seen = new Set<AddKey>();
  for (const raw of text.split(",")) {
    const piece = raw.trim();
    const eq = piece.indexOf("=");
    if (eq < 0) {
      throw new AllowanceError(`--add ${quote(piece)}: expected name=value, such as nudges=10`);
    }
    const key = piece.slice(0, eq).trim().toLowerCase();
    const value = piece.slice(eq + 1).trim();
    if (!(ADD_KEYS as readonly string[]).includes(key)) {
      throw new AllowanceError(
        `--add ${piece}: ${quote(key)} is not a budget; use ${ADD_KEYS.join(", ")}`,
      );
    }
    const name = key as AddKey;
    if (seen.has(name)) throw new AllowanceError(`--add ${piece}: ${name} is given twice`);
    seen.add(name);
    if (name === "nudges") out.nudges = wholeNumber(piece, value);
    else if (name === "tokens") out.tokens = tokens(piece, value);
    else if (name === "time") out.timeMs = time(piece, value);
    else out.costUsd = cost(piece, value);
  }
  return out;
}

/** What was added, as the log and `why` say it: "+10 nudges, +200,000 tokens, +30m, +$2.50". */
export function describeAllowance(add: Allowance): string {
  const parts: string[] = [];
  if (add.nudges > 0) parts.push(`+${plural(add.nudges, "nudge")}`);
  if (add.tokens > 0) parts.push(`+${formatCount(add.tokens)} tokens`);
  if (add.timeMs > 0) parts.push(`+${formatDuration(add.timeMs)}`);
  if (add.costUsd > 0) parts.push(`+${formatUsd(add.costUsd)}`);
  return parts.length === 0 ? "nothing" : parts.join(", ");
}
