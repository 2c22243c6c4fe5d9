import { formatCount } from "../../core/explain/numbers.js";
import type { BulkAction, BulkPlan } from "../bulk.js";
import { type Html, html } from "../html.js";
import { layout, link, type PageContext } from "./layout.js";

/** Labels listed on the confirmation page; the rest are counted. */
const LISTED = 20;

const VERBS: Record<BulkAction, { verb: string; done: string; effect: string }> = {
  stop: {
    verb: "stop",
    done: "Stopped",
    effect: "Their agents get no more nudges until they are resumed.",
  },
  resume: {
    verb: "resume",
    done: "Resumed",
    effect: "Nudges are allowed again at their next idle.",
  },
};

function scopes(n: number): string {
  return n === 1 ? "1 scope" : `${formatCount(n)} scopes`;
}

/** The question between the two steps: what would change, and the button that does it. */
export function bulkConfirmPage(ctx: PageContext, plan: BulkPlan): Html {
  const { verb, effect } = VERBS[plan.action];
  const back = html`<p><a href="${link(ctx, "/")}">Back to the overview</a></p>`;
  if (plan.keys.length === 0) {
    return layout(
      ctx,
      `Nothing to ${verb}`,
      html`<h1>Nothing to ${verb}</h1><p role="status">No scope of ${plan.target} would change.</p>${back}`,
    );
  }
  const more = plan.labels.length - LISTED;
  return layout(
    ctx,
    `Confirm: ${verb} ${scopes(plan.keys.length)}`,
    html`<h1>${verb === "stop" ? "Stop" : "Resume"} ${scopes(plan.keys.length)}?</h1>
<p class="confirm-what">${plan.target}: ${effect}</p>
<ul class="confirm-list">${plan.labels.slice(0, LISTED).map((l) => html`<li>${l}</li>`)}${
      more > 0 ? html`<li class="dim">and ${formatCount(more)} more</li>` : ""
    }</ul>
<form method="post" action="${link(ctx, `/bulk/${plan.action}`)}">
<input type="hidden" name="token" value="${ctx.token}">
<input type="hidden" name="confirm" value="${plan.code}">
<button type="submit">Confirm: ${verb} ${scopes(plan.keys.length)}</button>
<a href="${link(ctx, "/")}">Cancel</a>
</form>`,
  );
}

/** The overview's notice after a confirmed bulk action. */
export function bulkDoneText(action: string | null, count: number): string | null {
  if (action !== "stop" && action !== "resume") return null;
  return `${VERBS[action].done} ${scopes(count)}.`;
}

/** A bulk request that could not be done: why, and the way back. */
export function bulkRefusedPage(ctx: PageContext, text: string): Html {
  return layout(
    ctx,
    "Nothing was done",
    html`<h1>Nothing was done</h1><p class="notice notice-refused" role="alert">${text}</p><p><a href="${link(ctx, "/")}">Back to the overview</a></p>`,
  );
}
