import { formatAgo, formatCount, formatDuration } from "../../core/explain/numbers.js";
import { burnRate, projectNearestLimit } from "../burn.js";
import { type Html, html } from "../html.js";
import type { TotalsRow } from "../totals.js";
import { costWords, formatUsd, type OverviewRow } from "../view-model.js";

/**
 * The overview's spend cells: the episode's cost, its burn rate over the
 * recent window and the nearest limit at that pace. Computed per request
 * (they move with the clock), for the rows of one page only.
 */

const NONE = html`<span class="dim">—</span>`;

/** The spend cells of a row, projected against the row's own limits (its project's, see `ScopeJudge`). */
export function spendCells(row: OverviewRow, now: number): Html {
  const last =
    row.lastEventAt === null ? NONE : html`<span>${formatAgo(row.lastEventAt, now)}</span>`;
  if (row.spend === null) {
    return html`<td class="cost">${NONE}</td><td class="burn">${NONE}</td><td class="eta">${NONE}</td><td class="last-event">${last}</td>`;
  }
  const { episode, entries } = row.spend;
  const rate = burnRate(episode, entries, now);
  // Only a session being kept going heads for a limit; a stopped or finished one does not.
  const { limits } = row;
  const nearest =
    row.group === "working" && limits !== null && row.limitsFrom?.problem == null
      ? projectNearestLimit(episode, rate, limits, now)
      : null;
  const cost = costWords(episode);
  const burn = html`${formatCount(Math.round(rate.tokensPerMinute))} tok/min<br>${
    rate.usdPerHour === null
      ? html`<span class="dim">—/h</span>`
      : `${formatUsd(rate.usdPerHour)}/h`
  }`;
  const eta =
    nearest === null
      ? NONE
      : nearest.ms === 0
        ? html`<span class="problem">${nearest.limit} reached</span>`
        : html`${nearest.limit} in ${formatDuration(nearest.ms)}`;
  return html`<td class="cost">${cost === "—" ? NONE : cost}</td><td class="burn">${burn}</td><td class="eta">${eta}</td><td class="last-event">${last}</td>`;
}

/** Totals per day and host, as read from the logs. */
export function totalsSection(rows: readonly TotalsRow[]): Html {
  if (rows.length === 0) return html``;
  return html`<section class="totals" aria-labelledby="totals-h"><h2 id="totals-h">Totals per day and host</h2>
<p class="dim">From the decision logs (days in UTC; what the logs still keep), so a restart shows the same.</p>
<table class="totals-table"><thead><tr><th scope="col">Day</th><th scope="col">Host</th><th scope="col" class="num">Nudges</th><th scope="col" class="num">Continuation tokens</th><th scope="col" class="num">Cost</th></tr></thead>
<tbody>${rows.map(
    (r) =>
      html`<tr data-day="${r.day}" data-host="${r.host}"><td>${r.day}</td><td>${r.host}</td><td class="num">${formatCount(r.nudges)}</td><td class="num">${formatCount(r.tokens)}</td><td class="num">${r.priced ? formatUsd(r.costUsd) : "—"}</td></tr>`,
  )}</tbody></table></section>`;
}
