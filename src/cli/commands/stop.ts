import type { CommandSpec } from "../command.js";

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
  summary: "Allow nudges again after `stop`",
  usage: ["resume <scope>"],
  details: ["Lifts the user's stop. Budgets and other suppressors still apply."],
  args: { min: 1, max: 1 },
  examples: ["resume tui"],
  async run(ctx) {
    const { scope, label } = await ctx.findScope(ctx.positionals[0] ?? "", { allowNew: true });
    await (await ctx.runtime()).resume(scope);
    if (ctx.global.json) ctx.json({ key: scope.key, label, stopped: false });
    else ctx.out(`Resumed ${label} (${scope.key}): nudges are allowed again.`);
    return 0;
  },
};
