import { limitsSource } from "../../config/scope-limits.js";
import { countStatuses, describeCounts } from "../../core/dialects/display.js";
import { formatTimestamp } from "../../core/explain/numbers.js";
import { summarize } from "../../core/todo/summary.js";
import type { CommandSpec } from "../command.js";
import { problemLines } from "../format/problems.js";
import {
  budgetLines,
  checkLines,
  decisionPhrase,
  outcomeLine,
  reminderLine,
  suppressorLines,
} from "../format/state.js";
import { formatTodoTree, markLegend } from "../format/tree.js";
import { scopeProblems } from "../scope-problems.js";
import { countsOf, type ShowView } from "../views.js";

export const showCommand: CommandSpec = {
  name: "show",
  summary: "A scope's list as a tree and its continuation state in words",
  usage: ["show <scope>"],
  details: [
    "Prints phases, statuses, notes and blocked reasons, then the open episode's budget",
    "(used of limit, judged by the project's config file found from the folder the scope recorded,",
    "else by --preset), what suppresses nudges, and the last outcome and decision.",
    "A file that cannot be read is named first, with where its copy is kept (exit 1).",
  ],
  args: { min: 1, max: 1 },
  examples: ["show tui", "show 7f3a --json"],
  async run(ctx) {
    const { scope, label } = await ctx.findScope(ctx.positionals[0] ?? "");
    const store = await ctx.store();
    const judge = await ctx.judge();
    const snapshot = await store.read(scope);
    const judged = judge.limitsOf(snapshot.state);
    const [last] = await store.readLog(scope, 1);
    const { problems, code } = await scopeProblems(store, scope);
    const summary = summarize(snapshot.todos);
    const view: ShowView = {
      key: scope.key,
      kind: scope.kind,
      label,
      preset: judged.preset,
      limitsFile: judged.file,
      configProblem: judged.problem,
      counts: countsOf(summary),
      todos: snapshot.todos,
      todosRevision: snapshot.todosRevision,
      state: snapshot.state,
      limits: judged.limits,
      lastDecision: last ?? null,
      problems,
    };
    if (ctx.global.json) {
      ctx.json(view);
      return code;
    }
    const { style } = ctx;
    const now = judge.base.now();
    ctx.out(`${style.bold(label)}  ${style.dim(scope.key)}`);
    if (snapshot.state.projectDir !== undefined) ctx.out(`project: ${snapshot.state.projectDir}`);
    for (const line of problemLines(problems, style)) ctx.out(line);
    ctx.out();
    const counts = describeCounts(countStatuses(snapshot.todos.todos));
    ctx.out(style.bold(`Todos${counts ? `: ${counts}` : ""}`));
    for (const line of formatTodoTree(snapshot.todos, style)) ctx.out(`  ${line}`);
    if (snapshot.todos.todos.length > 0) ctx.out(style.dim(`  ${markLegend()}`));
    ctx.out();
    ctx.out(style.bold(`Continuation (judged by ${limitsSource(judged)})`));
    if (judged.problem !== null) {
      ctx.out(`  ${style.red(`The project's config file cannot be used: ${judged.problem}`)}`);
      ctx.out(
        `  ${style.yellow("Its hook sends no nudge until the file is fixed (config-invalid).")}`,
      );
    }
    for (const line of budgetLines(snapshot.state, judged.limits, now, summary))
      ctx.out(`  ${line}`);
    const suppressors = suppressorLines(snapshot.state);
    if (suppressors.length === 0) ctx.out("  Suppressors: none");
    else {
      ctx.out("  Suppressors:");
      for (const line of suppressors) ctx.out(`    ${style.yellow(line)}`);
    }
    ctx.out(`  Last turn: ${outcomeLine(snapshot.state.lastOutcome, now)}`);
    ctx.out(
      `  Last decision: ${last ? `${decisionPhrase(last)} at ${formatTimestamp(last.at)}` : "none yet"}`,
    );
    const reminders = reminderLine(snapshot.state.reminders);
    if (reminders !== null) ctx.out(`  ${reminders}`);
    if (snapshot.state.verify?.last != null) {
      for (const line of checkLines(snapshot.state.verify.last, now)) ctx.out(`  ${line}`);
    }
    return code;
  },
};
