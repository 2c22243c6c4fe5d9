import { invocation } from "../../demo/summary.js";
import type { CommandSpec } from "../command.js";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "../errors.js";

export const demoCommand: CommandSpec = {
  name: "demo",
  summary: "A scripted run with simulated agents through the real runtime and file store",
  usage: ["demo [--dir <path>]"],
  details: [
    "Five scenarios, each with a simulated agent (no model is called): finishing after a nudge,",
    "stagnation, a user abort, a process restart mid-episode, and a list with only blocked items.",
    "Uses a new temporary folder unless --dir is given, and leaves it for list/show/why. Prints a",
    "transcript and one `PASS <name>: ...` line per scenario; exits 1 if any scenario fails.",
    "Only the demo's own scopes (host `demo`) are reset in an existing folder.",
  ],
  args: { min: 0, max: 0 },
  examples: ["demo", "demo --dir /tmp/todo-demo", "demo --json"],
  async run(ctx) {
    if (ctx.global.databaseUrl !== undefined) {
      throw new UsageError(
        "the demo runs on the file store; --database-url does not apply",
        "demo",
      );
    }
    if (ctx.global.preset !== undefined && ctx.global.preset !== "default") {
      throw new UsageError(
        "the demo's scenarios are scripted for the default preset; --preset does not apply",
        "demo",
      );
    }
    const { runDemo } = await import("../../demo/run-demo.js");
    const report = await runDemo({
      ...(ctx.global.dir !== undefined ? { dir: ctx.global.dir } : {}),
      style: ctx.style,
      program: invocation(ctx.io.argv1, ctx.io.cwd),
      ...(ctx.global.json ? {} : { print: (line: string) => ctx.out(line) }),
    });
    if (ctx.global.json) ctx.json(report);
    return report.failed === 0 ? EXIT_OK : EXIT_FAILURE;
  },
};
