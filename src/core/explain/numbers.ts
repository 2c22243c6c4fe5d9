import { UNLIMITED } from "../engine/limits.js";

/** Human-readable times and numbers for every consumer, independent of the machine's locale. */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "0s", "45s", "3m 20s", "1h 5m", "2d 3h": the two largest units, enough to judge a budget. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "?";
  const units: [number, string][] = [
    [DAY, "d"],
    [HOUR, "h"],
    [MINUTE, "m"],
    [SECOND, "s"],
  ];
  const parts: string[] = [];
  let rest = Math.floor(ms);
  for (const [size, label] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n}${label}`);
    if (parts.length === 2) break;
  }
  if (parts.length === 0) return "0s";
  // "3m 0s" reads worse than "3m".
  return parts.filter((p, i) => i === 0 || !/^0\D/.test(p)).join(" ");
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** Local time as "2024-01-02 03:04:05". */
export function formatTimestamp(at: number): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return "?";
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}

/** "just now", "5s ago", "3m ago", or "in 2m" for a time still ahead. */
export function formatAgo(at: number, now: number): string {
  const delta = now - at;
  if (Math.abs(delta) < SECOND) return "just now";
  return delta > 0 ? `${formatDuration(delta)} ago` : `in ${formatDuration(-delta)}`;
}

/** 25000 -> "25,000", the same on every machine. */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const sign = n < 0 ? "-" : "";
  const [whole = "0", frac] = String(Math.abs(n)).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return frac === undefined ? `${sign}${grouped}` : `${sign}${grouped}.${frac}`;
}

/** "$0.42", "$12.50", "$0.0031" (small amounts keep two significant digits). */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd) || usd < 0) return "?";
  if (usd > 0 && usd < 0.01) return `$${usd.toPrecision(2)}`;
  const [whole = "0", cents = "00"] = usd.toFixed(2).split(".");
  return `$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${cents}`;
}

/** "1 item", "3 items". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** A limit as a count; presets mark "no limit" with a huge number that should read as such. */
export function limitCount(n: number): string {
  return n >= UNLIMITED ? "unlimited" : formatCount(n);
}

export function limitDuration(ms: number): string {
  return ms >= UNLIMITED ? "unlimited" : formatDuration(ms);
}

/** A run's duration with the precision a check deserves: "850 ms", "1.5 s", then `formatDuration`. */
export function formatRunTime(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "?";
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  return formatDuration(ms);
}
