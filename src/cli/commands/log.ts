import { quoteInput } from "../../core/quote.js";
import type { CommandSpec } from "../command.js";
import { UsageError } from "../errors.js";
import { formatLog } from "../format/log.js";
import { problemLines } from "../format/problems.js";
import { scopeProblems } from "../scope-problems.js";

/** A positive whole number from an option, or a usage error naming the option. */
export function countOption(name: string, value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`--${name}: expected a positive whole number, got ${quoteInput(text)}`);
  }
  return Number(text);
}

export const logCommand: CommandSpec = {
  name: "log",
  summary: "A scope's decision log: every nudge and every skip with its reason",
  usage: ["log <scope>"],
  options: {
    limit: {
      type: "string",
      short: "n",
      valueName: "n",
      description: "Show only the last n decisions.",
    },
  },
  args: { min: 1, max: 1 },
  examples: ["log tui", "log tui -n 10 --json"],
  async run(ctx) {
    const limit = countOption("limit", ctx.values.limit);
    const { scope, label } = await ctx.findScope(ctx.positionals[0] ?? "");
    const store = await ctx.store();
    const entries = await store.readLog(scope, limit);
    const { problems, code } = await scopeProblems(store, scope);
    if (ctx.global.json) {
      ctx.json({ key: scope.key, label, entries, problems });
      return code;
    }
    ctx.out(`${ctx.style.bold(label)}  ${ctx.style.dim(scope.key)}`);
    for (const line of problemLines(problems, ctx.style)) ctx.out(line);
    for (const line of formatLog(entries, ctx.style)) ctx.out(line);
    return code;
  },
};
