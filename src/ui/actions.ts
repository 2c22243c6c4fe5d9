import { limitsSource } from "../config/scope-limits.js";
import { NO_PHASE_LINE } from "../core/dialects/markdown/format.js";
import { renderMarkdown } from "../core/dialects/markdown/index.js";
import {
  AllowanceError,
  describeAllowance,
  parseAllowance,
} from "../core/engine/allowance-parse.js";
import { explainSkip } from "../core/explain/reasons.js";
import type { DecisionLogEntry, ScopeSnapshot, TodoList } from "../core/types.js";
import { applyListEdit, clearList } from "../runtime/list-edit.js";
import type { ContinuationRuntime } from "../runtime/runtime.js";
import type { ScopeJudge } from "./judge.js";
import type { Notice, ScopePageData, WhyText } from "./pages/scope.js";
import type { ScopeSource } from "./scope-source.js";

/**
 * What the scope page shows and what its buttons do. The actions are the
 * CLI's own: `runtime.stop`/`resume`, and `applyListEdit`/`clearList` from the
 * runtime, so an edit made here tells the agent exactly what `edit` would.
 */

/** The list as the editor shows it; an empty list keeps typed items out of the default phase. */
export function editableMarkdown(todos: TodoList): string {
  const empty = todos.todos.length === 0 && todos.phases.length === 0;
  return empty ? `${NO_PHASE_LINE}\n` : renderMarkdown(todos);
}

function whyText(judge: ScopeJudge, snapshot: ScopeSnapshot): WhyText {
  const now = judge.base.now();
  const { decision, summary, nudge, limits } = judge.preview(snapshot, now);
  const judgedBy = `Judged by ${limitsSource(limits)}.`;
  if (decision.action === "inject") {
    return {
      verdict: "Would nudge at the next idle.",
      explanation: `Actionable items remain and every check passes: the engine would send nudge ${decision.episode.autoTurns} of episode ${decision.episode.id}. ${judgedBy}`,
      nudge: nudge?.text ?? null,
    };
  }
  const problem = limits.problem === null ? "" : ` The file: ${limits.problem}.`;
  return {
    verdict: `Would not nudge (${decision.reason}).`,
    explanation: `${explainSkip(decision.reason, {
      state: decision.state,
      summary,
      limits: limits.limits,
      now,
    })}${problem} ${judgedBy}`,
    nudge: null,
  };
}

/** Everything the scope page shows, read fresh; null when the store has no such scope. */
export async function scopePageData(
  source: ScopeSource,
  judge: ScopeJudge,
  key: string,
): Promise<ScopePageData | null> {
  const scope = source.scope(key);
  if (scope === undefined) return null;
  await source.refresh([key]);
  const row = source.row(key);
  if (row === undefined) return null;
  let snapshot: ScopeSnapshot | null = null;
  let log: DecisionLogEntry[] = [];
  try {
    const { store } = judge.base;
    [snapshot, log] = await Promise.all([store.read(scope), store.readLog(scope)]);
  } catch {
    // The row already carries the store's error; the page shows it instead of the list.
  }
  return {
    row,
    todos: snapshot?.todos ?? null,
    todosRevision: snapshot?.todosRevision ?? 0,
    markdown: snapshot === null ? "" : editableMarkdown(snapshot.todos),
    log,
    why: snapshot === null ? null : whyText(judge, snapshot),
  };
}

export type ActionName = "stop" | "resume" | "raise" | "clear" | "edit";

export type ActionResult =
  | { kind: "missing" }
  | { kind: "done"; done: string }
  | { kind: "refused"; status: number; notice: Notice; draft: string | null };

function refused(status: number, text: string, draft: string | null, detail?: string[]) {
  return {
    kind: "refused" as const,
    status,
    notice: { kind: "refused" as const, text, ...(detail ? { detail } : {}) },
    draft,
  };
}

/** Runs one confirmed action on a scope the store lists; the source is refreshed before returning. */
export async function runAction(
  source: ScopeSource,
  runtime: ContinuationRuntime,
  action: ActionName,
  key: string,
  form: URLSearchParams,
): Promise<ActionResult> {
  const scope = source.scope(key);
  if (scope === undefined) return { kind: "missing" };
  if (form.get("confirm") !== "yes") {
    return refused(400, "Nothing was done: the action was not confirmed.", null);
  }
  const result = await perform(runtime, action, scope, form);
  await source.refresh([key]);
  return result;
}

async function perform(
  runtime: ContinuationRuntime,
  action: ActionName,
  scope: NonNullable<ReturnType<ScopeSource["scope"]>>,
  form: URLSearchParams,
): Promise<ActionResult> {
  const store = runtime.store;
  switch (action) {
    case "stop":
      await runtime.stop(scope);
      return { kind: "done", done: "stopped" };
    case "resume":
      await runtime.resume(scope);
      return { kind: "done", done: "resumed" };
    case "raise": {
      // The CLI's own parser and runtime call: `resume <scope> --add ...`.
      const text = form.get("add") ?? "";
      let add: ReturnType<typeof parseAllowance>;
      try {
        add = parseAllowance(text);
      } catch (error) {
        if (!(error instanceof AllowanceError)) throw error;
        return refused(422, `Nothing was raised: ${error.message}.`, null);
      }
      try {
        await runtime.raise(scope, add, describeAllowance(add));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!/no episode is open/.test(message)) throw error;
        return refused(409, `Nothing was raised: ${message}.`, null);
      }
      return { kind: "done", done: "raised" };
    }
    case "clear": {
      const removed = await clearList(store, scope, runtime.now());
      return { kind: "done", done: removed === 0 ? "already-empty" : "cleared" };
    }
    case "edit": {
      const markdown = form.get("markdown") ?? "";
      const revision = Number(form.get("revision"));
      const current = await store.read(scope);
      if (!Number.isSafeInteger(revision) || revision !== current.todosRevision) {
        return refused(
          409,
          "The list changed since this page showed it; nothing was saved. Your text is kept below: copy your changes over the current list.",
          markdown,
        );
      }
      const outcome = await applyListEdit(store, scope, current, markdown, runtime.now());
      switch (outcome.kind) {
        case "invalid":
          return refused(
            422,
            `The edit was refused, line ${outcome.line}: ${outcome.message}. Nothing was changed.`,
            markdown,
            [`${outcome.line} | ${outcome.lineText}`],
          );
        case "empties":
          return refused(
            422,
            "The edit removes every item; nothing was changed. To empty the list on purpose, use Clear.",
            markdown,
          );
        case "conflict":
          return refused(
            409,
            "The list changed while you were editing it; nothing was saved. Your text is kept below.",
            markdown,
          );
        case "unchanged":
          return { kind: "done", done: "unchanged" };
        case "saved":
          return { kind: "done", done: "edited" };
      }
    }
  }
}
