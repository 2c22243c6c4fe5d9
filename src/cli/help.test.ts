import { describe, expect, it } from "vitest";
import type { CommandSpec } from "./command.js";
import { formatCommandHelp, formatOverview } from "./help.js";

const show: CommandSpec = {
  name: "show",
  summary: "Show a scope",
  usage: ["show <scope>"],
  details: ["Prints the tree."],
  options: { limit: { type: "string", short: "n", valueName: "n", description: "Rows." } },
  args: { min: 1, max: 1 },
  examples: ["show tui"],
  run: async () => 0,
};

describe("formatOverview", () => {
  it("lists commands with their summaries, the global options and the exit codes", () => {
    const text = formatOverview([show], "1.2.3");
    expect(text).toContain("todo-continuation 1.2.3:");
    expect(text).toContain("  show <scope>  Show a scope");
    expect(text).toMatch(/--dir <path>\s+Store folder/);
    expect(text).toContain("  2  bad usage");
  });
});

describe("formatCommandHelp", () => {
  it("shows usage, details, the command's options, examples and exit codes", () => {
    const text = formatCommandHelp(show);
    expect(text).toContain("  todo-continuation show <scope>");
    expect(text).toContain("Prints the tree.");
    expect(text).toMatch(/-n, --limit <n>\s+Rows\./);
    expect(text).toContain("Examples:\n  todo-continuation show tui");
    expect(text).toContain("Exit codes:");
  });
});
