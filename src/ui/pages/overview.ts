import { formatAgo, formatCount, formatDuration } from "../../core/explain/numbers.js";
import { GROUP_NAMES, GROUP_WORDS, type GroupName } from "../groups.js";
import { type Html, html, raw } from "../html.js";
import { type OverviewQuery, SORT_KEYS, selectRows } from "../query.js";
import type { RowSummary } from "../row-index.js";
import type { TotalsRow } from "../totals.js";
import { verifyBadge } from "../verification.js";
import { type BudgetBar, type OverviewRow, STATE_NAMES, STATE_WORDS } from "../view-model.js";
import { layout, link, type PageContext } from "./layout.js";
import { spendCells, totalsSection } from "./spend.js";

/**
 * Rows per page: enough to scan, few enough that every browser draws them at
 * once and that rendering a page never holds up the server's other requests.
 */
export const PAGE_SIZE = 100;

/** What the overview shows: the rows the query picked, in order, and counts over all rows. */
export interface OverviewData {
  picked: readonly OverviewRow[];
  summary: Pick<RowSummary, "total" | "byState" | "hosts"> & Partial<Pick<RowSummary, "byGroup">>;
  /** Finished scopes left out for being older than a day (0 when they are shown). */
  hidden?: number;
  totals?: readonly TotalsRow[];
  /** A bulk action's outcome, in words. */
  notice?: string | null;
}

/** How many scopes need someone: the count the page title carries. */
export function needsYou(data: OverviewData): number {
  return data.summary.byGroup?.get("needs-you") ?? 0;
}

/** The overview's title: "(3) Scopes" while three need someone, so a background tab shows it. */
export function overviewTitle(needing: number): string {
  return needing > 0 ? `(${formatCount(needing)}) Scopes` : "Scopes";
}

/** The overview's data from a plain array of rows (sorted and counted here, for small sets). */
export function overviewData(rows: readonly OverviewRow[], query: OverviewQuery): OverviewData {
  const byState = new Map<string, number>();
  for (const r of rows) byState.set(r.state, (byState.get(r.state) ?? 0) + 1);
  return {
    picked: selectRows(rows, query),
    summary: { total: rows.length, byState, hosts: [...new Set(rows.map((r) => r.host))].sort() },
  };
}

function budgetValue(b: BudgetBar): string {
  return b.name === "wall clock" ? formatDuration(b.used) : formatCount(b.used);
}

function budgetText(b: BudgetBar): string {
  const limit =
    b.limit === null
      ? "no limit"
      : `of ${b.name === "wall clock" ? formatDuration(b.limit) : formatCount(b.limit)}`;
  return `${b.name} ${budgetValue(b)} ${limit}`;
}

/** One meter per budget; `detailed` adds the numbers in text beside each. */
export function budgetMeters(budgets: readonly BudgetBar[], detailed = false): Html {
  if (budgets.length === 0) return html``;
  return html`<ul class="budgets${detailed ? " detailed" : ""}">${budgets.map(
    (b) =>
      html`<li><span class="budget-name">${b.name}</span><meter min="0" max="1" value="${b.fraction.toFixed(3)}" aria-label="${budgetText(b)}" title="${budgetText(b)}" high="0.8" optimum="0"></meter>${
        detailed ? html`<span>${budgetText(b).slice(b.name.length + 1)}</span>` : ""
      }</li>`,
  )}</ul>`;
}

/**
 * Each row's cells but the last decision's age, rendered once per row: rows are replaced, not
 * changed, when their scope changes, so a page of 500 rows costs string joins, not 500 renders
 * that would hold up every other request.
 */
const renderedRows = new WeakMap<OverviewRow, { ctx: PageContext; text: string }>();

function rowHtml(ctx: PageContext, row: OverviewRow, now: number): Html {
  let cached = renderedRows.get(row);
  if (cached === undefined || cached.ctx !== ctx) {
    cached = { ctx, text: rowCells(ctx, row).text };
    renderedRows.set(row, cached);
  }
  const last =
    row.problem !== null
      ? html`<span class="problem">${row.problem.message}${row.problem.preservedCopies.map(
          (copy) => html`<br>preserved copy: <code>${copy}</code>`,
        )}</span>`
      : row.last === null
        ? html`<span class="dim">no decision yet</span>`
        : html`${row.last.words} <span class="dim">${formatAgo(row.last.at, now)}</span>`;
  return html`${raw(cached.text)}${spendCells(row, now)}<td>${last}</td>
</tr>`;
}

function rowCells(ctx: PageContext, row: OverviewRow): Html {
  const href = link(ctx, "/scope", { key: row.key });
  const select =
    row.state === "stopped"
      ? html`<input type="checkbox" name="key" value="${row.key}" form="bulk-resume" aria-label="${`select ${row.label}`}">`
      : "";
  return html`<tr data-key="${row.key}" data-state="${row.state}" data-group="${row.group}">
<td class="select">${select}</td>
<td><a href="${href}">${row.label}</a><br><code class="key">${row.key}</code>${
    row.project === null
      ? ""
      : html`<br><span class="project dim" title="project folder">${row.project}</span>`
  }</td>
<td>${row.host}<br><span class="model${row.model === null ? " dim" : ""}">${row.model ?? "—"}</span></td>
<td class="num">${row.counts.open}</td>
<td class="num">${row.counts.blocked}</td>
<td class="num">${row.counts.done}</td>
<td><span class="state state-${row.state}">${row.stateWords}</span>${verifyBadge(row.verify)}${row.groupWhy === row.stateWords ? "" : html`<br><span class="why dim">${row.groupWhy}</span>`}</td>
<td>${budgetMeters(row.budgets)}</td>
`;
}

function queryParams(query: OverviewQuery, page?: number): Record<string, string> {
  const params: Record<string, string> = {};
  if (query.text) params.q = query.text;
  if (query.host) params.host = query.host;
  if (query.state) params.state = query.state;
  if (query.group) params.group = query.group;
  if (query.hideBefore === null) params.old = "1";
  params.sort = query.sort;
  params.order = query.descending ? "desc" : "asc";
  if (page !== undefined && page > 0) params.page = String(page);
  return params;
}

/** Links to each group with its count; the current one is marked. */
function groupNav(ctx: PageContext, data: OverviewData, query: OverviewQuery): Html {
  const counts = data.summary.byGroup ?? new Map<string, number>();
  const item = (group: GroupName | "", words: string, count: number) => {
    const params = queryParams({ ...query, group });
    const current = query.group === group;
    return html`<li><a href="${link(ctx, "/", params)}" data-group="${group}"${current ? html` aria-current="page"` : ""}>${words} <span class="count">(${formatCount(count)})</span></a></li>`;
  };
  return html`<nav class="groups" aria-label="Groups"><ul>${item("", "all", data.summary.total)}${GROUP_NAMES.map(
    (g) => item(g, GROUP_WORDS[g], counts.get(g) ?? 0),
  )}</ul></nav>`;
}

function groupHead(group: GroupName): Html {
  return html`<tr class="group-head" data-group-head="${group}"><th colspan="${COLUMNS}" scope="colgroup">${GROUP_WORDS[group]}</th></tr>
`;
}

const COLUMNS = 13;

/** The rows of one page; sorted by group, each group's first row on the page gets a heading. */
function tableBody(
  ctx: PageContext,
  rows: readonly OverviewRow[],
  query: OverviewQuery,
  now: number,
): Html[] {
  const out: Html[] = [];
  let group: GroupName | null = null;
  for (const row of rows) {
    if (query.sort === "group" && row.group !== group) {
      group = row.group;
      out.push(groupHead(group));
    }
    out.push(rowHtml(ctx, row, now));
  }
  return out;
}

/** The part of the overview that live updates replace. */
export function overviewLive(
  ctx: PageContext,
  data: OverviewData,
  query: OverviewQuery,
  page: number,
  now: number,
  listError: string | null,
): Html {
  const { picked } = data;
  const { total, byState: counts } = data.summary;
  const pages = Math.max(1, Math.ceil(picked.length / PAGE_SIZE));
  const current = Math.min(Math.max(0, page), pages - 1);
  const shown = picked.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE);
  const summary = STATE_NAMES.filter((s) => (counts.get(s) ?? 0) > 0)
    .map((s) => `${counts.get(s)} ${STATE_WORDS[s]}`)
    .join(", ");
  const hidden = data.hidden ?? 0;
  const hiddenNote =
    hidden > 0
      ? html` <span class="hidden-note">${hidden === 1 ? "1 finished scope" : `${formatCount(hidden)} finished scopes`} older than a day hidden: <a href="${link(ctx, "/", { ...queryParams(query), old: "1" })}">show them</a>.</span>`
      : query.hideBefore === null
        ? html` <span class="hidden-note">Showing finished scopes of every age: <a href="${link(
            ctx,
            "/",
            Object.fromEntries(Object.entries(queryParams(query)).filter(([k]) => k !== "old")),
          )}">hide those older than a day</a>.</span>`
        : "";
  const nav =
    pages === 1
      ? html``
      : html`<nav class="pages" aria-label="Pages">Page ${current + 1} of ${pages}: ${
          current > 0
            ? html`<a href="${link(ctx, "/", queryParams(query, current - 1))}">previous</a>`
            : ""
        } ${
          current < pages - 1
            ? html`<a href="${link(ctx, "/", queryParams(query, current + 1))}">next</a>`
            : ""
        }</nav>`;
  return html`${listError === null ? "" : html`<p class="problem" role="alert">The store could not be listed: ${listError}</p>`}
${data.notice ? html`<p class="notice notice-done" role="status">${data.notice}</p>` : ""}
${groupNav(ctx, data, query)}
<p class="summary" data-needs-you="${needsYou(data)}">${total === 1 ? "1 scope" : `${formatCount(total)} scopes`}${summary ? `: ${summary}` : ""}. Showing ${shown.length} of ${picked.length} matching.${hiddenNote}</p>
${nav}
<table class="scopes">
<caption class="visually-hidden">Scopes</caption>
<thead><tr><th scope="col"><span class="visually-hidden">Select</span></th><th scope="col">Scope</th><th scope="col">Host, model</th><th scope="col" class="num">Open</th><th scope="col" class="num">Blocked</th><th scope="col" class="num">Done</th><th scope="col">State</th><th scope="col">Budgets</th><th scope="col">Cost</th><th scope="col">Burn rate</th><th scope="col">Nearest limit</th><th scope="col">Last event</th><th scope="col">Last decision</th></tr></thead>
<tbody>
${tableBody(ctx, shown, query, now)}
</tbody>
</table>
${shown.length === 0 ? html`<p class="empty">${total === 0 ? "The store holds no scopes yet." : "No scope matches the filter."}</p>` : ""}
${totalsSection(data.totals ?? [])}`;
}

const SORT_WORDS: Record<(typeof SORT_KEYS)[number], string> = {
  group: "what it needs",
  label: "label",
  host: "host",
  state: "state",
  open: "open items",
  blocked: "blocked items",
  done: "done items",
  last: "last decision",
};

function option(value: string, label: string, selected: boolean): Html {
  return html`<option value="${value}"${selected ? html` selected` : ""}>${label}</option>`;
}

export function overviewPage(
  ctx: PageContext,
  data: OverviewData,
  query: OverviewQuery,
  page: number,
  now: number,
  listError: string | null,
): Html {
  const { hosts } = data.summary;
  const liveSrc = link(ctx, "/", { ...queryParams(query, page), fragment: "1" });
  return layout(
    ctx,
    overviewTitle(needsYou(data)),
    html`<h1>Scopes</h1>
<form class="filters" method="get" action="/" role="search" aria-label="Filter scopes">
<input type="hidden" name="token" value="${ctx.token}">
<label>Text <input type="search" name="q" value="${query.text}" placeholder="label, key, host"></label>
<label>Host <select name="host">${option("", "any", query.host === "")}${hosts.map((h) => option(h, h, query.host === h))}</select></label>
<label>Group <select name="group">${option("", "any", query.group === "")}${GROUP_NAMES.map((g) => option(g, GROUP_WORDS[g], query.group === g))}</select></label>
<label>State <select name="state">${option("", "any", query.state === "")}${STATE_NAMES.map((s) => option(s, STATE_WORDS[s], query.state === s))}</select></label>
<label>Sort by <select name="sort">${SORT_KEYS.map((k) => option(k, SORT_WORDS[k], query.sort === k))}</select></label>
<label>Order <select name="order">${option("desc", "descending", query.descending)}${option("asc", "ascending", !query.descending)}</select></label>
${query.hideBefore === null ? html`<input type="hidden" name="old" value="1">` : ""}
<button type="submit">Apply</button>
</form>
${bulkControls(ctx, hosts)}
<div id="live" data-src="${liveSrc}">
${overviewLive(ctx, data, query, page, now, listError)}
</div>`,
  );
}

/** Stop-all (per host or everything) and bulk resume; each asks for a confirmation first. */
function bulkControls(ctx: PageContext, hosts: readonly string[]): Html {
  return html`<section class="bulk" aria-label="Bulk actions">
<details><summary>Stop all…</summary>
<form method="post" action="${link(ctx, "/bulk/stop")}">
<input type="hidden" name="token" value="${ctx.token}">
<label>Which <select name="host">${option("", "every host", true)}${hosts.map((h) => option(h, `host ${h}`, false))}</select></label>
<button type="submit">Stop all…</button>
</form></details>
<form id="bulk-resume" method="post" action="${link(ctx, "/bulk/resume")}">
<input type="hidden" name="token" value="${ctx.token}">
<button type="submit">Resume selected…</button>
<button type="submit" name="all" value="1">Resume all stopped…</button>
</form>
</section>`;
}
