import { STATUS_MARK } from "../../core/dialects/display.js";
import { phaseTree } from "../../core/dialects/phases.js";
import { formatTimestamp } from "../../core/explain/numbers.js";
import type { DecisionLogEntry, Todo, TodoList } from "../../core/types.js";
import { type Html, html } from "../html.js";
import { verificationSection } from "../verification.js";
import { lastDecisionWords, type OverviewRow } from "../view-model.js";
import { layout, link, type PageContext } from "./layout.js";
import { budgetMeters } from "./overview.js";
import { timelineChart } from "./timeline.js";

const STATUS_WORDS: Record<Todo["status"], string> = {
  pending: "pending",
  in_progress: "in progress",
  completed: "completed",
  cancelled: "cancelled",
  blocked: "blocked",
};

/** Where the budgets' limits came from: the project's config file, or the dashboard's preset. */
function limitsNote(row: OverviewRow): Html {
  const from = row.limitsFrom;
  if (from === null) return html``;
  if (from.problem !== null) {
    return html`<p class="problem">The project's config file cannot be used, so its hook sends no nudge (config-invalid): ${from.problem}. The limits above are preset ${from.preset}'s, not the project's.</p>`;
  }
  return from.file === null
    ? html`<p class="dim">Limits of preset ${from.preset} (no project config file).</p>`
    : html`<p class="dim">Limits from <code>${from.file}</code> (preset ${from.preset}).</p>`;
}

/** What the engine would decide now, in words (the `why` command's dry run). */
export interface WhyText {
  verdict: string;
  explanation: string;
  nudge: string | null;
}

export interface ScopePageData {
  row: OverviewRow;
  todos: TodoList | null;
  todosRevision: number;
  markdown: string;
  log: DecisionLogEntry[];
  why: WhyText | null;
  /** The time "ago" is counted from; now by default. */
  now?: number;
}

/** A message above the page: the outcome of an action, or why it was refused. */
export interface Notice {
  kind: "done" | "refused";
  text: string;
  /** Lines quoted under the text (the parser's line, the reminder sent). */
  detail?: string[];
}

function itemHtml(todo: Todo): Html {
  const tags = [todo.id === undefined ? null : `#${todo.id}`, todo.priority ?? null].filter(
    (t) => t !== null,
  );
  return html`<li class="item status-${todo.status}"><span class="mark" aria-hidden="true">[${STATUS_MARK[todo.status]}]</span> <span class="visually-hidden">${STATUS_WORDS[todo.status]}:</span> ${todo.content}${tags.length > 0 ? html` <span class="dim">(${tags.join(", ")})</span>` : ""}${
    todo.status === "blocked" && todo.blockedReason !== undefined
      ? html`<div class="blocked">blocked: ${todo.blockedReason}</div>`
      : ""
  }${
    (todo.notes ?? []).length > 0
      ? html`<ul class="notes">${(todo.notes ?? []).map((n) => html`<li>${n}</li>`)}</ul>`
      : ""
  }</li>`;
}

export function todoTree(list: TodoList): Html {
  if (list.todos.length === 0 && list.phases.length === 0) {
    return html`<p class="empty">The list is empty.</p>`;
  }
  return html`${phaseTree(list).map((group) =>
    group.name === null
      ? html`<ul class="tree">${group.tasks.map(itemHtml)}</ul>`
      : html`<section class="phase"><h3>${group.name}</h3>${
          group.tasks.length === 0
            ? html`<p class="dim">(no items)</p>`
            : html`<ul class="tree">${group.tasks.map(itemHtml)}</ul>`
        }</section>`,
  )}`;
}

function logTable(log: readonly DecisionLogEntry[]): Html {
  if (log.length === 0) return html``;
  const recent = [...log].reverse().slice(0, 50);
  return html`<details class="log"><summary>The last ${recent.length} decisions as a table</summary>
<table><thead><tr><th scope="col">When</th><th scope="col">Decision</th><th scope="col">Reason</th><th scope="col" class="num">Episode tokens</th><th scope="col">Trigger</th></tr></thead>
<tbody>${recent.map(
    (e) =>
      html`<tr><td>${formatTimestamp(e.at)}</td><td>${lastDecisionWords(e)}</td><td>${e.reason ?? ""}</td><td class="num">${e.tokens}</td><td>${e.trigger}</td></tr>`,
  )}</tbody></table></details>`;
}

/** The part of a scope's page that live updates replace. */
export function scopeLive(data: ScopePageData): Html {
  const { row } = data;
  const problem = row.problem;
  return html`<p class="facts"><span class="state state-${row.state}">${row.stateWords}</span> · host ${row.host} · ${row.counts.open} open, ${row.counts.blocked} blocked, ${row.counts.done} done</p>
${
  problem === null
    ? ""
    : html`<div class="problem" role="alert"><p>${problem.unreadable ? "This scope could not be read" : "Note"}: ${problem.message}.</p>${
        problem.preservedCopies.length === 0
          ? ""
          : html`<p>Unreadable versions are preserved at:</p><ul>${problem.preservedCopies.map(
              (copy) => html`<li><code>${copy}</code></li>`,
            )}</ul>`
      }</div>`
}
${
  data.why === null
    ? ""
    : html`<section aria-labelledby="why-h"><h2 id="why-h">Why</h2>
<p><strong>${data.why.verdict}</strong> ${data.why.explanation}</p>
${data.why.nudge === null ? "" : html`<details><summary>The nudge it would send</summary><pre class="nudge">${data.why.nudge}</pre></details>`}
</section>`
}
${verificationSection(row.verify, data.now ?? Date.now())}
<section aria-labelledby="budget-h"><h2 id="budget-h">Budgets of the open episode</h2>
${row.episodeId === null ? html`<p class="dim">No episode is open.</p>` : budgetMeters(row.budgets, true)}
${limitsNote(row)}
</section>
<section aria-labelledby="list-h"><h2 id="list-h">The list</h2>
${data.todos === null ? html`<p class="dim">Not available.</p>` : todoTree(data.todos)}
</section>
<section aria-labelledby="timeline-h"><h2 id="timeline-h">Decisions over time</h2>
${timelineChart(data.log)}
${logTable(data.log)}
</section>`;
}

function actionForm(
  ctx: PageContext,
  key: string,
  action: string,
  summary: string,
  confirmText: string,
  button: string,
): Html {
  return html`<details class="action"><summary>${summary}</summary>
<form method="post" action="${link(ctx, `/scope/${action}`, { key })}">
<input type="hidden" name="token" value="${ctx.token}">
<p>${confirmText}</p>
<button type="submit" name="confirm" value="yes">${button}</button>
</form></details>`;
}

export function scopePage(
  ctx: PageContext,
  data: ScopePageData,
  notice: Notice | null,
  draft: string | null,
): Html {
  const { row } = data;
  const liveSrc = link(ctx, "/scope", { key: row.key, fragment: "1" });
  const stopped = row.state === "stopped";
  return layout(
    ctx,
    row.label,
    html`<p><a href="${link(ctx, "/")}">All scopes</a></p>
<h1>${row.label} <code class="key">${row.key}</code></h1>
${
  notice === null
    ? ""
    : html`<div class="notice notice-${notice.kind}" role="${notice.kind === "refused" ? "alert" : "status"}"><p>${notice.text}</p>${
        notice.detail && notice.detail.length > 0
          ? html`<pre>${notice.detail.join("\n")}</pre>`
          : ""
      }</div>`
}
<div id="live" data-src="${liveSrc}" data-key="${row.key}">
${scopeLive(data)}
</div>
<section aria-labelledby="actions-h" class="actions"><h2 id="actions-h">Actions</h2>
${
  stopped
    ? actionForm(
        ctx,
        row.key,
        "resume",
        "Resume…",
        "Allow nudges again? Budgets and other checks still apply.",
        "Confirm: resume nudging",
      )
    : actionForm(
        ctx,
        row.key,
        "stop",
        "Stop…",
        "Stop nudging this scope until it is resumed? The list is not touched.",
        "Confirm: stop nudging",
      )
}
<details class="action"><summary>Raise the budget…</summary>
<form method="post" action="${link(ctx, "/scope/raise", { key: row.key })}">
<input type="hidden" name="token" value="${ctx.token}">
<label for="add">Add to the open episode (as <code>resume --add</code>): <code>nudges=10,tokens=200k,time=30m,cost=2.50</code></label>
<input id="add" name="add" type="text" required value="nudges=10" spellcheck="false">
<p>Lifts a stop and an out-of-budget or stagnation stop; the next real user message starts a fresh episode without it.</p>
<button type="submit" name="confirm" value="yes">Confirm: raise the budget</button>
</form></details>
${actionForm(ctx, row.key, "clear", "Clear the list…", "Remove every item and phase? The agent is told at its next turn; the decision log stays.", "Confirm: clear the list")}
<details class="action"${draft !== null ? html` open` : ""}><summary>Edit the list…</summary>
<form method="post" action="${link(ctx, "/scope/edit", { key: row.key })}">
<input type="hidden" name="token" value="${ctx.token}">
<input type="hidden" name="revision" value="${data.todosRevision}">
<label for="markdown">The list as markdown: <code>- [ ]</code> pending, <code>- [/]</code> in progress, <code>- [x]</code> completed, <code>- [-]</code> cancelled, <code>- [!] task (blocked: reason)</code>; <code>## Name</code> starts a phase; <code>  &gt; text</code> adds a note.</label>
<textarea id="markdown" name="markdown" rows="14" spellcheck="false">${draft ?? data.markdown}</textarea>
<p>Saving tells the agent at its next turn exactly what changed.</p>
<button type="submit" name="confirm" value="yes">Confirm: save the edit</button>
</form></details>
</section>`,
  );
}
