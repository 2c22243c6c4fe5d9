import { describe, expect, it } from "vitest";
import { commandIndex, parseCommandLine } from "./argv.js";
import type { CommandSpec } from "./command.js";
import { UsageError } from "./errors.js";

function spec(name: string, patch: Partial<CommandSpec> = {}): CommandSpec {
  return {
    name,
    summary: name,
    usage: [`${name} <scope>`],
    args: { min: 0, max: 1 },
    run: async () => 0,
    ...patch,
  };
}

const commands = [
  spec("show", { args: { min: 1, max: 1 } }),
  spec("log", { options: { limit: { type: "string", description: "rows" } } }),
  spec("list", { args: { min: 0, max: 0 } }),
  spec("mcp", { passthrough: true }),
];

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error("expected a UsageError");
}

describe("commandIndex", () => {
  it("skips global options and their values", () => {
    expect(commandIndex(["--dir", "x", "show", "a"])).toBe(2);
    expect(commandIndex(["--dir=x", "--json", "list"])).toBe(2);
    expect(commandIndex(["--json"])).toBe(-1);
  });
});

describe("parseCommandLine", () => {
  it("accepts global options before and after the command", () => {
    const parsed = parseCommandLine(["--dir", "/d", "show", "tui", "--json"], commands);
    expect(parsed.kind).toBe("command");
    if (parsed.kind !== "command") return;
    expect(parsed.command.name).toBe("show");
    expect(parsed.positionals).toEqual(["tui"]);
    expect(parsed.global.dir).toBe("/d");
    expect(parsed.global.json).toBe(true);
  });

  it("separates a command's own options from the global ones", () => {
    const parsed = parseCommandLine(["log", "tui", "--limit", "5"], commands);
    if (parsed.kind !== "command") throw new Error("expected a command");
    expect(parsed.values).toEqual({ limit: "5" });
  });

  it("routes --help and --version", () => {
    expect(parseCommandLine(["--version"], commands).kind).toBe("version");
    const help = parseCommandLine(["show", "--help"], commands);
    expect(help).toMatchObject({ kind: "help", topic: "show" });
    expect(parseCommandLine(["--help"], commands)).toMatchObject({
      kind: "help",
      topic: undefined,
    });
  });

  it("rejects what a person could have mistyped, naming it", () => {
    expect(usageError(() => parseCommandLine([], commands)).message).toBe("no command given");
    expect(usageError(() => parseCommandLine(["shwo"], commands)).message).toBe(
      "unknown command 'shwo' (did you mean 'show'?)",
    );
    expect(usageError(() => parseCommandLine(["show"], commands)).message).toContain(
      "missing argument",
    );
    expect(usageError(() => parseCommandLine(["list", "extra"], commands)).message).toBe(
      "unexpected argument: extra",
    );
    expect(usageError(() => parseCommandLine(["list", "--frobnicate"], commands)).message).toBe(
      "unknown option --frobnicate",
    );
    expect(usageError(() => parseCommandLine(["log", "--limit"], commands)).message).toBe(
      "option --limit <value> needs a value",
    );
  });

  it("hands a passthrough command its arguments unparsed, after reading global options", () => {
    const parsed = parseCommandLine(["--dir", "/d", "mcp", "--scope", "tui", "--help"], commands);
    if (parsed.kind !== "command") throw new Error("expected a command");
    expect(parsed.positionals).toEqual(["--scope", "tui", "--help"]);
    expect(parsed.global.dir).toBe("/d");
  });

  it("does not accept another command's option", () => {
    expect(usageError(() => parseCommandLine(["list", "--limit", "3"], commands)).command).toBe(
      "list",
    );
  });
});
