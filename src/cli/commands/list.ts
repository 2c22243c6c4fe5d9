import { formatCount } from "../../core/explain/numbers.js";
import { describeScope } from "../../core/scope/index.js";
import { summarize } from "../../core/todo/summary.js";
import type { CommandSpec } from "../command.js";
import { EXIT_FAILURE } from "../errors.js";
import { hasUnreadable, problemLines } from "../format/problems.js";
import { formatTable } from "../format/table.js";
import { storeDescription } from "../store.js";
import { type ScopeRow, scopeRow } from "../views.js";

export const listCommand: CommandSpec = {
  name: "list",
  summary: "Every scope in the store with its counts and continuation state",
  usage: ["list"],
  details: [
    "OPEN counts pending and in-progress items (the only ones that drive nudges), DONE completed",
    "ones. STATE says what holds nudges back, else the open episode, else the last decision.",
    "A scope with a file that cannot be read is marked UNREADABLE and named below the table (exit 1).",
  ],
  args: { min: 0, max: 0 },
  examples: ["list", "list --json", "--dir ./.todo list"],
  async run(ctx) {
    const store = await ctx.store();
    const runtime = await ctx.runtime();
    const scopes = await store.listScopes();
    const rows: ScopeRow[] = [];
    for (const scope of scopes) {
      const snapshot = await store.read(scope);
      const [last] = await store.readLog(scope, 1);
      const problems = (await store.problems?.(scope)) ?? [];
      rows.push(
        scopeRow(
          scope,
          describeScope(scope),
          snapshot,
          summarize(snapshot.todos),
          last ?? null,
          runtime.limits,
          problems,
        ),
      );
    }
    const where = storeDescription(ctx.global, ctx.io.env);
    const code = rows.some((r) => hasUnreadable(r.problems)) ? EXIT_FAILURE : 0;
    if (ctx.global.json) {
      ctx.json({ store: where, preset: runtime.preset.name, scopes: rows });
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
        hasUnreadable(r.problems)
          ? style.red(r.status)
          : r.stopped || r.userAbortBlocked
            ? style.yellow(r.status)
            : r.status,
      ]),
    );
    ctx.out(style.dim(`${rows.length === 1 ? "1 scope" : `${rows.length} scopes`} in ${where}`));
    for (const line of table) ctx.out(line);
    for (const row of rows.filter((r) => hasUnreadable(r.problems))) {
      ctx.out();
      ctx.out(`${style.bold(row.key)}:`);
      for (const line of problemLines(row.problems, style)) ctx.out(`  ${line}`);
    }
    return code;
  },
};
