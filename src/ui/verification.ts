import { formatAgo, formatRunTime, formatTimestamp } from "../core/explain/numbers.js";
import type { CheckResult, ContinuationState, TodoSummary } from "../core/types.js";
import { type Html, html } from "./html.js";

/**
 * The last verification (the project's own check, `verify`) as the dashboard
 * shows it: on the scope's page in full, on the overview as a badge when the
 * list is done but the check fails. Pure.
 */
export interface VerificationView {
  check: CheckResult;
  /** "passed (exit 0)", "failed (exit 2)", "timed out (not nudged)", "could not start". */
  outcome: string;
  /** Nothing actionable left on a non-empty list, and the last check failed. */
  doneButFailing: boolean;
  /** The same failure came back unchanged: no more verification nudges this episode. */
  halted: boolean;
}

export function checkOutcome(check: CheckResult): string {
  switch (check.status) {
    case "passed":
      return "passed (exit 0)";
    case "failed":
      return `failed (exit ${check.exitCode ?? check.signal ?? "?"})`;
    case "timed-out":
      return "timed out (not nudged)";
    case "error":
      return "could not start";
  }
}

/** Null when the scope never ran a check. */
export function verificationView(
  state: ContinuationState,
  summary: TodoSummary,
): VerificationView | null {
  const check = state.verify?.last ?? null;
  if (check === null) return null;
  return {
    check,
    outcome: checkOutcome(check),
    doneButFailing: summary.total > 0 && summary.actionable === 0 && check.status === "failed",
    halted: state.verify?.halted === true,
  };
}

/** The overview's mark for a scope whose list is done but whose check fails. */
export function verifyBadge(view: VerificationView | null | undefined): Html {
  if (view == null || !view.doneButFailing) return html``;
  return html` <span class="badge badge-check-fails" title="${`${view.check.command}: ${view.outcome}`}">done, check fails</span>`;
}

/**
 * The scope page's section: when, exit code, duration, command and the
 * output's tail. Nothing for a scope that never ran a check (most run none).
 */
export function verificationSection(view: VerificationView | null | undefined, now: number): Html {
  if (view == null) return html``;
  const { check } = view;
  const tail = check.outputTail.trim();
  return html`<section aria-labelledby="verify-h" class="verification verification-${check.status}"><h2 id="verify-h">Last verification</h2>
${view.doneButFailing ? html`<p class="problem"><strong>The list is done but the check fails.</strong></p>` : ""}
<dl class="verify-facts">
<dt>Command</dt><dd><code>${check.command}</code></dd>
<dt>Outcome</dt><dd class="verify-outcome">${view.outcome}${check.cached === true ? html` <span class="dim">(unchanged tree: the earlier run's result)</span>` : ""}</dd>
<dt>When</dt><dd>${formatTimestamp(check.startedAt)} <span class="dim">${formatAgo(check.startedAt, now)}</span></dd>
<dt>Took</dt><dd>${formatRunTime(check.durationMs)}</dd>
${view.halted ? html`<dt>Nudges</dt><dd>ended: the same failure came back with nothing changed</dd>` : ""}
</dl>
${tail === "" ? html`<p class="dim">No output.</p>` : html`<details${check.status === "passed" ? "" : html` open`}><summary>The output's last lines</summary><pre class="verify-tail">${tail}</pre></details>`}
</section>`;
}

/** Styles for the above, appended to the dashboard's stylesheet. */
export const VERIFICATION_CSS = `
.badge { display: inline-block; margin-left: .4em; padding: 0 .4em; border-radius: 3px; font-size: .85em; }
.badge-check-fails { color: #fff; background: #b45309; }
.verify-facts { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; margin: .5em 0; }
.verify-facts dt { color: var(--dim); }
.verify-facts dd { margin: 0; }
.verification-passed .verify-outcome { color: #166534; }
.verification-failed .verify-outcome { color: #9f1239; }
.verify-tail { max-height: 24em; overflow: auto; background: #f9fafb; padding: .5em; border: 1px solid var(--line); }
`;
