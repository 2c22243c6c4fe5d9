import { limitsSource } from "../../config/scope-limits.js";
import { episodeLimits } from "../../core/engine/allowance.js";
import type { CommandSpec } from "../command.js";
import { formatLog } from "../format/log.js";
import { problemLines } from "../format/problems.js";
import { checkLines, costWords, raisedLines } from "../format/state.js";
import { scopeProblems } from "../scope-problems.js";
import { whyView } from "../views.js";
import { projectTrustHint } from "./config.js";
import { countOption } from "./log.js";

/** Decisions from the log shown under the dry run unless --limit says otherwise. */
const RECENT = 5;

export const whyCommand: CommandSpec = {
  name: "why",
  summary: "What the engine would decide right now and why, plus the last decisions",
  usage: ["why <scope>"],
  details: [
    "A dry run of the decision (nothing is written, the one-shot restart kick is not used up),",
    "judged by the limits the scope's hook used: the project's config file, found from the folder",
    "the scope recorded (a --preset given here overrides the file's preset, not its limits), else",
    "--preset or the defaults. A config file that cannot be used is named (the hook nudges nothing",
    "then: config-invalid). Facts only the host knows (background work, recovery, agent mode, a",
    "pending question, the host's own goal loop) are taken as absent; the log below shows",
    "what the host reported (a stop the host's /goal drove is logged as host-goal-active).",
    "With an inject, the nudge text is printed too.",
    "A file that cannot be read is named first, with where its copy is kept (exit 1).",
  ],
  options: {
    limit: {
      type: "string",
      short: "n",
      valueName: "n",
      description: `Recent decisions to show (default ${RECENT}).`,
    },
  },
  args: { min: 1, max: 1 },
  examples: ["why tui", "why 7f3a --json"],
  async run(ctx) {
    const limit = countOption("limit", ctx.values.limit) ?? RECENT;
    const { scope, label } = await ctx.findScope(ctx.positionals[0] ?? "");
    const judge = await ctx.judge();
    const { decision, summary, nudge, limits: judged } = await judge.explain(scope);
    const { limits } = judged;
    const now = judge.base.now();
    const store = await ctx.store();
    const recent = await store.readLog(scope, limit);
    const { problems, code } = await scopeProblems(store, scope);
    const view = whyView({
      scope,
      label,
      judged,
      decision,
      summary,
      nudge,
      now,
      recent,
      problems,
    });
    if (ctx.global.json) {
      ctx.json(view);
      return code;
    }
    const { style } = ctx;
    ctx.out(`${style.bold(label)}  ${style.dim(scope.key)}`);
    for (const line of problemLines(problems, style)) ctx.out(line);
    ctx.out();
    const verdict =
      view.action === "inject"
        ? style.green("would NUDGE now")
        : `${style.yellow("would NOT nudge now")}: ${view.reason}`;
    ctx.out(`${style.bold("Decision")} (${limitsSource(judged)}): ${verdict}`);
    ctx.out(`  ${view.explanation}`);
    if (judged.mode === "advise" && view.action === "inject") {
      ctx.out(
        `  ${style.yellow("the project's config file sets advise mode: the nudge would be recorded, not delivered")}`,
      );
    }
    // A raise changes what the budgets allow: say so beside the verdict.
    for (const line of raisedLines(decision.state)) ctx.out(`  ${style.yellow(line)}`);
    // A cost cap that is not the project's would mislead: none is shown then.
    if (decision.state.episode != null && judged.problem === null) {
      ctx.out(
        `  Episode cost: ${costWords(decision.state, episodeLimits(limits, decision.state.episode))}`,
      );
    }
    ctx.out(style.dim(`  Assumed (only the host knows): ${view.assumed.join("; ")}.`));
    const last = decision.state.verify?.last;
    if (last != null) for (const line of checkLines(last, now)) ctx.out(`  ${line}`);
    // The project the scope works in, not the folder `why` was typed in; its problem is named above.
    const trustHint =
      judged.problem === null
        ? projectTrustHint(judged.projectDir ?? ctx.io.cwd, ctx.io.env)
        : null;
    if (trustHint !== null) ctx.out(`  ${style.yellow(trustHint)}`);
    if (view.nudge !== null) {
      ctx.out();
      ctx.out(
        style.bold(
          `The nudge (${view.nudge.chars} characters, about ${view.nudge.tokens} tokens):`,
        ),
      );
      for (const line of view.nudge.text.split("\n")) ctx.out(`  | ${line}`);
    }
    ctx.out();
    if (recent.length === 0) {
      ctx.out(`${style.bold("Decision log:")} no decisions recorded yet.`);
      return code;
    }
    ctx.out(style.bold(`Last ${recent.length === 1 ? "decision" : `${recent.length} decisions`}:`));
    for (const line of formatLog(recent, style)) ctx.out(`  ${line}`);
    return code;
  },
};
