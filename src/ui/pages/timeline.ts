import { formatCount, formatTimestamp } from "../../core/explain/numbers.js";
import { REASON_TITLES } from "../../core/explain/reasons.js";
import type { DecisionLogEntry } from "../../core/types.js";
import { type Html, html, raw } from "../html.js";

const WIDTH = 720;
const HEIGHT = 200;
const LEFT = 70;
const RIGHT = 60;
const NUDGE_Y = 40;
const SKIP_Y = 80;
const TOKENS_TOP = 105;
const TOKENS_BOTTOM = 175;

/** Colours for skip reasons, in order of first appearance; they repeat after the last. */
const PALETTE = ["#b45309", "#7c3aed", "#be123c", "#0f766e", "#4d7c0f", "#a21caf", "#334155"];

function reasonOf(entry: DecisionLogEntry): string {
  if (entry.action === "inject") return "nudge";
  if (entry.action === "delivery-failed") return "delivery failed";
  return entry.reason ?? "skip";
}

/**
 * The decision log as a chart over time: nudges on one lane, skips on another
 * coloured by reason, and the episode's token spend as a line below. The same
 * facts are in the table that follows it, for screen readers.
 */
export function timelineChart(log: readonly DecisionLogEntry[]): Html {
  if (log.length === 0) return html`<p class="empty">No decisions recorded yet.</p>`;
  const first = log[0]!.at;
  const last = log.at(-1)!.at;
  const span = Math.max(1, last - first);
  const x = (at: number) => LEFT + ((at - first) / span) * (WIDTH - LEFT - RIGHT);
  const maxTokens = Math.max(1, ...log.map((e) => e.tokens));
  const y = (tokens: number) => TOKENS_BOTTOM - (tokens / maxTokens) * (TOKENS_BOTTOM - TOKENS_TOP);
  const colours = new Map<string, string>();
  const counts = new Map<string, number>();
  for (const entry of log) {
    const reason = reasonOf(entry);
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
    if (entry.action !== "inject" && !colours.has(reason)) {
      colours.set(reason, PALETTE[colours.size % PALETTE.length]!);
    }
  }
  const marks = log.map((entry) => {
    const cx = x(entry.at).toFixed(1);
    const reason = reasonOf(entry);
    if (entry.action === "inject") {
      return `<circle cx="${cx}" cy="${NUDGE_Y}" r="5" fill="#15803d"><title>${formatTimestamp(entry.at)}: nudge ${entry.autoTurns}</title></circle>`;
    }
    const colour = colours.get(reason)!;
    return `<rect x="${(Number(cx) - 4).toFixed(1)}" y="${SKIP_Y - 4}" width="8" height="8" fill="${colour}"><title>${formatTimestamp(entry.at)}: ${reason}</title></rect>`;
  });
  const points = log.map((e) => `${x(e.at).toFixed(1)},${y(e.tokens).toFixed(1)}`).join(" ");
  const nudges = counts.get("nudge") ?? 0;
  const skipWords = [...colours.keys()].map((r) => `${counts.get(r)} ${r}`).join(", ");
  const description = `${nudges} nudges and ${log.length - nudges} other decisions from ${formatTimestamp(first)} to ${formatTimestamp(last)}${skipWords ? ` (${skipWords})` : ""}; episode tokens peak at ${formatCount(maxTokens)}.`;
  const svg = `<svg class="timeline" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="timeline-title timeline-desc" xmlns="http://www.w3.org/2000/svg">
<title id="timeline-title">Decisions over time</title>
<desc id="timeline-desc">${escapeText(description)}</desc>
<text x="4" y="${NUDGE_Y + 4}" class="lane">nudges</text>
<text x="4" y="${SKIP_Y + 4}" class="lane">skips</text>
<text x="4" y="${TOKENS_TOP + 8}" class="lane">tokens</text>
<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${NUDGE_Y}" y2="${NUDGE_Y}" class="axis"/>
<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${SKIP_Y}" y2="${SKIP_Y}" class="axis"/>
<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${TOKENS_BOTTOM}" y2="${TOKENS_BOTTOM}" class="axis"/>
<polyline points="${points}" fill="none" stroke="#1d4ed8" stroke-width="2"/>
<text x="${WIDTH - RIGHT + 4}" y="${TOKENS_TOP + 8}" class="lane">${formatCount(maxTokens)}</text>
<text x="${LEFT}" y="${HEIGHT - 6}" class="lane">${formatTimestamp(first)}</text>
<text x="${WIDTH - RIGHT}" y="${HEIGHT - 6}" class="lane" text-anchor="end">${formatTimestamp(last)}</text>
${marks.join("\n")}
</svg>`;
  const legend = html`<ul class="legend">
<li><span class="swatch nudge"></span>nudge (${nudges})</li>
${[...colours.keys()].map(
  (reason, index) =>
    html`<li><span class="swatch c${index % PALETTE.length}"></span>${reason}${
      reason in REASON_TITLES ? ` — ${REASON_TITLES[reason as keyof typeof REASON_TITLES]}` : ""
    } (${counts.get(reason)})</li>`,
)}
<li><span class="swatch line"></span>tokens spent in the episode</li>
</ul>`;
  return html`${raw(svg)}${legend}`;
}

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
