import { clearList } from "../../runtime/list-edit.js";
import type { CommandSpec } from "../command.js";

export const clearCommand: CommandSpec = {
  name: "clear",
  summary: "Empty a scope's list (the agent is told at its next turn)",
  usage: ["clear <scope>"],
  details: [
    "Removes every item and phase; continuation state and the decision log stay. Ids are not",
    "reused afterwards. A user-edit reminder tells the model the user cleared its list.",
  ],
  args: { min: 1, max: 1 },
  examples: ["clear tui"],
  async run(ctx) {
    const { scope, label } = await ctx.findScope(ctx.positionals[0] ?? "");
    const store = await ctx.store();
    const now = (await ctx.runtime()).now();
    const removed = await clearList(store, scope, now);
    if (ctx.global.json) ctx.json({ key: scope.key, label, removed });
    else if (removed === 0) ctx.out(`${label} was already empty.`);
    else ctx.out(`Cleared ${label}: removed ${removed === 1 ? "1 item" : `${removed} items`}.`);
    return 0;
  },
};
