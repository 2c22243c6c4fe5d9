import { limitsSource } from "../../config/scope-limits.js";
import { episodeLimits } from "../../core/engine/allowance.js";
import {
  AllowanceError,
  describeAllowance,
  parseAllowance,
} from "../../core/engine/allowance-parse.js";
import { limitCount } from "../../core/explain/numbers.js";
import type { CommandSpec } from "../command.js";
import { CliError, UsageError } from "../errors.js";

export const stopCommand: CommandSpec = {
  name: "stop",
  summary: "Stop nudging a scope, durably, until `resume`",
  usage: ["stop <scope>"],
  details: [
    "The user's explicit stop: the engine skips with `continuation-stopped` until `resume`,",
    "across restarts and new user messages. The todo list itself is not touched.",
    "A full scope key that is not in the store yet is accepted, so a scope can be stopped in advance.",
  ],
  args: { min: 1, max: 1 },
  examples: ["stop tui"],
  async run(ctx) {
    const { scope, label } = await ctx.findScope(ctx.positionals[0] ?? "", { allowNew: true });
    await (await ctx.runtime()).stop(scope);
    if (ctx.global.json) ctx.json({ key: scope.key, label, stopped: true });
    else
      ctx.out(
        `Stopped ${label} (${scope.key}): no nudges until \`todo-continuation resume ${scope.key}\`.`,
      );
    return 0;
  },
};

export const resumeCommand: CommandSpec = {
  name: "resume",
  summary: "Allow nudges again after `stop`, or give the open episode more budget",
  usage: ["resume <scope> [--add nudges=N,tokens=N,time=T,cost=USD]"],
  details: [
    "Lifts the user's stop. Budgets and other suppressors still apply.",
    "With --add, also adds to the open episode's limits and lifts an out-of-budget or",
    "stagnation stop: tokens take k and m (200k, 1.5m), time needs s, m or h (90s, 30m, 2h),",
    "cost is USD (2.50). The raise is logged as a user action; the next real user message",
    "starts a fresh episode without it. Bad values change nothing (exit 2); without an open",
    "episode there is nothing to raise (exit 1).",
  ],
  options: {
    add: {
      type: "string",
      valueName: "budgets",
      description: "What to add to the open episode: nudges=10,tokens=200k,time=30m,cost=2.50.",
    },
  },
  args: { min: 1, max: 1 },
  examples: ["resume tui", "resume 7f3a --add nudges=10,tokens=200k,time=30m"],
  async run(ctx) {
    const addText = ctx.values.add;
    let add = null;
    if (addText !== undefined) {
      try {
        add = parseAllowance(String(addText));
      } catch (error) {
        if (error instanceof AllowanceError) throw new UsageError(error.message, "resume");
        throw error;
      }
    }
    const { scope, label } = await ctx.findScope(ctx.positionals[0] ?? "", {
      allowNew: add === null,
    });
    const runtime = await ctx.runtime();
    if (add === null) {
      await runtime.resume(scope);
      if (ctx.global.json) ctx.json({ key: scope.key, label, stopped: false });
      else ctx.out(`Resumed ${label} (${scope.key}): nudges are allowed again.`);
      return 0;
    }
    const added = describeAllowance(add);
    let episode: Awaited<ReturnType<typeof runtime.raise>>;
    try {
      episode = await runtime.raise(scope, add, added);
    } catch (error) {
      if (error instanceof Error && /no episode is open/.test(error.message)) {
        throw new CliError(`Nothing raised for ${label} (${scope.key}): ${error.message}.`);
      }
      throw error;
    }
    // Judged as the scope's hook judges it: by its project's config file, if it has one.
    const judged = (await ctx.judge()).limitsOf((await runtime.store.read(scope)).state);
    const limits = episodeLimits(judged.limits, episode);
    if (ctx.global.json) {
      ctx.json({
        key: scope.key,
        label,
        stopped: false,
        episodeId: episode.id,
        added: add,
        raised: episode.raised,
        limits,
        preset: judged.preset,
        limitsFile: judged.file,
        configProblem: judged.problem,
      });
      return 0;
    }
    ctx.out(`Resumed ${label} (${scope.key}) and raised episode ${episode.id}: ${added}.`);
    ctx.out(
      `  Now allowed: ${limitCount(limits.maxAutoTurns)} nudges (${episode.autoTurns} used), judged by ${limitsSource(judged)}.`,
    );
    if (judged.problem !== null) {
      ctx.out(`  The project's config file cannot be used: ${judged.problem}`);
      ctx.out("  Its hook sends no nudge until the file is fixed (config-invalid).");
    }
    return 0;
  },
};
