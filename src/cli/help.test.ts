import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CommandSpec } from "./command.js";
import { helpWidth, paragraphs, wrapText } from "./format/wrap.js";
import { formatCommandHelp, formatOverview } from "./help.js";
import { COMMANDS } from "./registry.js";
import { runCli } from "./run.js";

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

/** Runs the dispatcher with stdout as a terminal of `columns` (or no terminal). */
async function helpOutput(argv: string[], columns: number | null): Promise<string> {
  let out = "";
  const stdout = {
    write: (text: string) => {
      out += text;
      return true;
    },
    ...(columns === null ? {} : { isTTY: true, columns }),
  };
  const code = await runCli(argv, {
    stdout,
    stderr: { write: () => true },
    stdin: new PassThrough(),
    env: {},
    cwd: "/",
    argv1: undefined,
  });
  expect(code).toBe(0);
  return out;
}

/** Lines wider than `width` that could have been broken (have a space after their indent). */
function overlong(text: string, width: number): string[] {
  return text.split("\n").filter((line) => line.length > width && / /.test(line.trimStart()));
}

describe("formatOverview", () => {
  it("lists commands with their summaries beneath, the global options and the exit codes", () => {
    const text = formatOverview([show], "1.2.3");
    expect(text).toContain("todo-continuation 1.2.3:");
    expect(text).toContain("  show <scope>\n      Show a scope\n");
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

describe("help at a terminal's width", () => {
  const cases: [string, number | null, number][] = [
    ["an 80-column terminal", 80, 80],
    ["a 100-column terminal", 100, 100],
    ["no terminal (80)", null, 80],
  ];

  it.each(cases)("--help fits %s and lists every command", async (_, columns, width) => {
    const text = await helpOutput(["--help"], columns);
    expect(overlong(text, width)).toEqual([]);
    for (const command of [...COMMANDS.map((c) => c.name), "help"]) {
      expect(text).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    }
    // Each summary is printed whole (rewrapped, not cut).
    const flat = text.replace(/\s+/g, " ");
    for (const command of COMMANDS) expect(flat).toContain(command.summary);
  });

  it.each(cases)("every command's --help fits %s", async (_, columns, width) => {
    for (const command of COMMANDS) {
      const text = await helpOutput([command.name, "--help"], columns);
      expect(overlong(text, width), command.name).toEqual([]);
      const flat = text.replace(/\s+/g, " ");
      for (const option of Object.values(command.options ?? {})) {
        expect(flat).toContain(option.description);
      }
    }
  });

  it("takes the terminal's columns, and 80 without a terminal", () => {
    expect(helpWidth({ isTTY: true, columns: 132 })).toBe(132);
    expect(helpWidth({ isTTY: false, columns: 132 })).toBe(80);
    expect(helpWidth({})).toBe(80);
    expect(helpWidth({ isTTY: true, columns: 10 })).toBe(40);
  });
});

describe("wrapText", () => {
  it("keeps every word, in order, within the width unless a word alone is wider", () => {
    const word = fc.stringMatching(/^[a-z<>|-]{1,30}$/);
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 40 }),
        fc.integer({ min: 10, max: 120 }),
        (words, width) => {
          const lines = wrapText(words.join(" "), width, "  ", "      ");
          expect(
            lines
              .join(" ")
              .split(" ")
              .filter((w) => w !== ""),
          ).toEqual(words);
          for (const line of lines) {
            if (line.length > width) expect(line.trim()).not.toContain(" ");
          }
        },
      ),
    );
  });

  it("joins hard-wrapped lines back into sentences", () => {
    expect(paragraphs(["One sentence that", "goes on.", "Another."])).toEqual([
      "One sentence that goes on.",
      "Another.",
    ]);
  });
});
