import { formatCount } from "../../core/explain/numbers.js";
import { describeScope } from "../../core/scope/index.js";
import { summarize } from "../../core/todo/summary.js";
import { scanScopes } from "../../store/scan.js";
import type { CommandSpec } from "../command.js";
import { EXIT_FAILURE } from "../errors.js";
import { hasUnreadable, problemLines } from "../format/problems.js";
import { formatTable } from "../format/table.js";
import { storeDescription } from "../store.js";
import { failedRow, type ScopeRow, scopeRow } from "../views.js";

export const listCommand: CommandSpec = {
  name: "list",
  summary: "Every scope in the store with its counts and continuation state",
  usage: ["list"],
  details: [
    "OPEN counts pending and in-progress items (the only ones that drive nudges), DONE completed",
    "ones. STATE says what holds nudges back, else the open episode, else the last decision; each",
    "episode's budget is judged by its project's config file (from the folder the scope recorded),",
    "else by --preset.",
    "A scope with a file that cannot be read is marked UNREADABLE and named below the table (exit 1).",
  ],
  args: { min: 0, max: 0 },
  examples: ["list", "list --json", "--dir ./.todo list"],
  async run(ctx) {
    const store = await ctx.store();
    const judge = await ctx.judge();
    const rows: ScopeRow[] = [];
    // One pass over the store: per-scope reads cost a folder listing each on big file stores.
    for await (const batch of scanScopes(store, { logTail: 1 })) {
      for (const item of batch) {
        const label = describeScope(item.scope);
        if (!item.ok) {
          rows.push(failedRow(item.scope, label, item.error));
          continue;
        }
        const { snapshot } = item;
        rows.push(
          scopeRow(
            item.scope,
            label,
            snapshot,
            summarize(snapshot.todos),
            item.log.at(-1) ?? null,
            // Each scope by its own project's file: read once per project, however many scopes.
            judge.limitsOf(snapshot.state),
            item.problems,
          ),
        );
      }
    }
    const where = storeDescription(ctx.global, ctx.io.env);
    const unreadable = (r: ScopeRow) => r.error !== null || hasUnreadable(r.problems);
    const code = rows.some(unreadable) ? EXIT_FAILURE : 0;
    if (ctx.global.json) {
      ctx.json({ store: where, preset: judge.base.preset.name, scopes: rows });
      return code;
    }
    if (rows.length === 0) {
      ctx.out(`No scopes in ${where} yet.`);
      return 0;
    }
    const { style } = ctx;
    const table = formatTable(
      [
        { header: "SCOPE" },
        { header: "LABEL" },
        { header: "OPEN", align: "right" },
        { header: "BLOCKED", align: "right" },
        { header: "DONE", align: "right" },
        { header: "STATE" },
      ],
      rows.map((r) => [
        r.key,
        r.label,
        r.counts.actionable > 0 ? style.bold(formatCount(r.counts.actionable)) : "0",
        r.counts.blocked > 0 ? style.red(formatCount(r.counts.blocked)) : "0",
        formatCount(r.counts.completed),
        unreadable(r)
          ? style.red(r.status)
          : r.stopped || r.userAbortBlocked
            ? style.yellow(r.status)
            : r.status,
      ]),
    );
    ctx.out(style.dim(`${rows.length === 1 ? "1 scope" : `${rows.length} scopes`} in ${where}`));
    // One write for the whole table: thousands of rows are thousands of writes otherwise.
    ctx.out(table.join("\n"));
    for (const row of rows.filter(unreadable)) {
      ctx.out();
      ctx.out(`${style.bold(row.key)}:`);
      if (row.error !== null) ctx.out(`  ${style.red(`Cannot be read: ${row.error}`)}`);
      for (const line of problemLines(row.problems, style)) ctx.out(`  ${line}`);
    }
    // Each broken project file once, however many of its scopes are listed.
    const broken = new Set(
      rows.flatMap((r) => (r.configProblem === null ? [] : [r.configProblem])),
    );
    for (const problem of broken) {
      ctx.out();
      ctx.out(
        style.red(`A project's config file cannot be used (its hooks nudge nothing): ${problem}`),
      );
    }
    return code;
  },
};
