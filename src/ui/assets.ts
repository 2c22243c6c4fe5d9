/**
 * The page's style sheet and script, kept as strings so `tsc` ships them in
 * dist with everything else: no bundler, no framework, no copy step.
 */
import { VERIFICATION_CSS } from "./verification.js";

export const STYLE_CSS: string = `
:root { color-scheme: light; --fg: #1f2937; --dim: #4b5563; --line: #d1d5db; --accent: #1d4ed8; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: #fff; }
.top { display: flex; gap: 1em; align-items: baseline; padding: .6em 1.2em; border-bottom: 1px solid var(--line); background: #f8fafc; }
.brand { font-weight: 700; color: var(--fg); text-decoration: none; }
.where, .dim { color: var(--dim); }
.live-status { margin-left: auto; color: var(--dim); font-size: .9em; }
main { padding: 1em 1.2em; max-width: 1800px; }
h1 { font-size: 1.4em; margin: .2em 0 .6em; }
h2 { font-size: 1.15em; margin: 1.2em 0 .4em; }
h3 { font-size: 1em; margin: .8em 0 .2em; }
a { color: var(--accent); }
code.key { font-size: .85em; color: var(--dim); }
.filters { display: flex; flex-wrap: wrap; gap: .8em; align-items: end; margin-bottom: .8em; }
.filters label { display: flex; flex-direction: column; font-size: .9em; color: var(--dim); }
input, select, textarea, button { font: inherit; }
button { padding: .3em .9em; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; cursor: pointer; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35em .5em; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .9em; color: var(--dim); font-weight: 600; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.budgets { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: auto auto; gap: 0 .4em; font-size: .8em; }
.budgets li { display: contents; }
.budgets.detailed { grid-template-columns: auto auto auto; font-size: .95em; max-width: 30em; }
.budget-name { color: var(--dim); }
meter { width: 6em; }
.state { padding: .05em .45em; border-radius: 3px; font-size: .9em; white-space: nowrap; border: 1px solid currentColor; }
.state-nudging { color: #166534; }
.state-parked { color: #92400e; }
.state-stopped { color: #9f1239; }
.state-out-of-budget { color: #6b21a8; }
.state-idle { color: #374151; }
.state-unreadable { color: #fff; background: #9f1239; border-color: #9f1239; }
.problem { color: #9f1239; }
.notice { padding: .5em .8em; border-radius: 4px; margin: .6em 0; }
.notice-done { background: #ecfdf5; border: 1px solid #15803d; }
.notice-refused { background: #fff1f2; border: 1px solid #9f1239; }
.notice pre, pre.nudge { white-space: pre-wrap; font-size: .9em; margin: .3em 0 0; }
.tree { list-style: none; padding-left: .4em; margin: .2em 0; }
.item { margin: .15em 0; }
.mark { font-family: ui-monospace, monospace; }
.status-completed, .status-cancelled { color: var(--dim); }
.status-cancelled { text-decoration: line-through; }
.status-in_progress { font-weight: 600; }
.blocked { color: #9f1239; margin-left: 2.2em; font-size: .92em; }
.notes { color: var(--dim); margin: 0 0 0 2.2em; padding: 0; list-style: "> "; font-size: .92em; }
.timeline { width: 100%; max-width: 760px; height: auto; border: 1px solid var(--line); background: #fff; }
.timeline .lane { font-size: 11px; fill: #374151; }
.timeline .axis { stroke: var(--line); }
.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .3em 1.2em; font-size: .9em; }
.swatch { display: inline-block; width: .8em; height: .8em; margin-right: .35em; vertical-align: -.05em; }
.swatch.nudge { background: #15803d; border-radius: 50%; }
.swatch.line { height: .2em; background: #1d4ed8; vertical-align: .2em; }
.c0 { background: #b45309; } .c1 { background: #7c3aed; } .c2 { background: #be123c; } .c3 { background: #0f766e; }
.c4 { background: #4d7c0f; } .c5 { background: #a21caf; } .c6 { background: #334155; }
.actions details { margin: .4em 0; }
.actions summary { cursor: pointer; color: var(--accent); }
.actions form { padding: .4em 0 .4em 1em; }
textarea { width: 100%; max-width: 60em; font-family: ui-monospace, monospace; font-size: .9em; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.empty { color: var(--dim); font-style: italic; }
.groups ul { list-style: none; display: flex; flex-wrap: wrap; gap: .3em 1em; padding: 0; margin: .2em 0 .6em; }
.groups a[aria-current] { font-weight: 700; color: var(--fg); text-decoration: none; }
.groups a[data-group="needs-you"] { color: #9f1239; }
tr.group-head th { background: #f1f5f9; color: var(--fg); font-size: .95em; padding-top: .5em; }
.why, .model, .project { font-size: .85em; }
.cost, .burn, .eta, .last-event { font-size: .9em; white-space: nowrap; }
.bulk { display: flex; flex-wrap: wrap; gap: 1em; align-items: start; margin: 0 0 .8em; }
.bulk details summary { cursor: pointer; color: var(--accent); }
.bulk form { display: flex; gap: .6em; align-items: end; }
.bulk label { display: flex; flex-direction: column; font-size: .9em; color: var(--dim); }
.totals-table { max-width: 50em; }
${VERIFICATION_CSS}`;

/**
 * Live updates: the server announces changed scopes over Server-Sent Events;
 * the page then fetches its own live part again and swaps it in. Filters on
 * the overview apply as they change, without a reload.
 */
export const APP_JS: string = `
(() => {
  "use strict";
  const live = document.getElementById("live");
  const status = document.getElementById("live-status");
  const token = document.body.dataset.token;
  if (!live || !token || !window.EventSource) return;
  let timer = null;
  let running = false;
  let again = false;
  async function refresh() {
    timer = null;
    if (running) { again = true; return; }
    running = true;
    try {
      const response = await fetch(live.dataset.src, { headers: { accept: "text/html" } });
      if (response.ok) {
        // Rows picked for a bulk resume stay picked across updates.
        const picked = new Set(Array.from(live.querySelectorAll("input[name=key]:checked"), (box) => box.value));
        live.innerHTML = await response.text();
        for (const box of live.querySelectorAll("input[name=key]")) if (picked.has(box.value)) box.checked = true;
        showNeeds();
        document.body.dataset.updatedAt = String(Date.now());
      }
    } catch (error) {
      if (status) status.textContent = "update failed; retrying";
    } finally {
      running = false;
      if (again) { again = false; schedule(); }
    }
  }
  // The title counts the scopes that need someone, so a tab in the background shows it.
  function showNeeds() {
    const summary = live.querySelector("[data-needs-you]");
    if (!summary) return;
    const n = Number(summary.getAttribute("data-needs-you")) || 0;
    const base = document.title.replace(/^\\(\\d[\\d,]*\\) /, "");
    document.title = n > 0 ? "(" + n.toLocaleString("en-US") + ") " + base : base;
  }
  function schedule() { if (timer === null) timer = setTimeout(refresh, 60); }
  const key = live.dataset.key;
  const events = new EventSource("/events?" + new URLSearchParams(key ? { token, key } : { token }));
  events.addEventListener("change", schedule);
  // The server's first message on a stream says how it follows the store: "live" only when
  // changes are reported as they happen, else the rescan interval and why.
  events.addEventListener("status", (event) => {
    const follow = JSON.parse(event.data);
    document.body.dataset.follow = follow.mode;
    if (!status) return;
    status.textContent = follow.mode === "watching"
      ? "live"
      : "polling every " + Math.round(follow.everyMs / 100) / 10 + " s: " + follow.reason;
  });
  events.addEventListener("open", () => { document.body.dataset.live = "1"; });
  events.addEventListener("error", () => { if (status) status.textContent = "reconnecting"; });
  const filters = document.querySelector("form.filters");
  if (filters) {
    let typing = null;
    const apply = () => {
      const params = new URLSearchParams(new FormData(filters));
      history.replaceState(null, "", "/?" + params);
      params.set("fragment", "1");
      live.dataset.src = "/?" + params;
      refresh();
    };
    filters.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(apply, 150); });
    filters.addEventListener("submit", (event) => { event.preventDefault(); apply(); });
  }
})();
`;
