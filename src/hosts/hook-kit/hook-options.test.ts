import { type ParseArgsConfig, parseArgs } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type OptionSpec, readOptions } from "./hook-options.js";

const OPTIONS: Record<string, OptionSpec> = {
  preset: { type: "string" },
  dir: { type: "string" },
  "database-url": { type: "string" },
  "nudge-after-questions": { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/** What `parseArgs` (strict, positionals allowed) makes of `args`, or "error". */
function reference(args: string[]): { values: object; positionals: string[] } | "error" {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: OPTIONS as NonNullable<ParseArgsConfig["options"]>,
      allowPositionals: true,
      strict: true,
    });
    return { values: { ...values }, positionals };
  } catch {
    return "error";
  }
}

function ours(args: string[]): { values: object; positionals: string[] } | "error" {
  try {
    const { values, positionals } = readOptions(args, OPTIONS);
    return { values, positionals };
  } catch {
    return "error";
  }
}

/** The words a hook's command line is made of, the awkward ones included. */
const WORD = fc.oneof(
  fc.constantFrom(
    "--dir",
    "--dir=",
    "--dir=/tmp/x",
    "--dir==",
    "--preset",
    "--preset=parley",
    "--database-url",
    "--database-url=postgres://h/db",
    "--nudge-after-questions",
    "--nudge-after-questions=1",
    "--help",
    "--help=",
    "-h",
    "-hh",
    "-hx",
    "-h=1",
    "-x",
    "-",
    "--",
    "---dir",
    "--unknown",
    "--no-help",
    "--__proto__",
    "--constructor",
    "parley",
    "/tmp/store",
    "-1",
    "",
  ),
  fc.string({ maxLength: 6 }),
);

describe("readOptions", () => {
  it("accepts and refuses what node:util parseArgs does, with the same values", () => {
    fc.assert(
      fc.property(fc.array(WORD, { maxLength: 7 }), (args) => {
        expect(ours(args)).toEqual(reference(args));
      }),
      { numRuns: 3000 },
    );
  });

  it("reads values given both ways, the last one winning", () => {
    expect(readOptions(["--dir", "a", "--dir=b", "-h", "--", "--dir"], OPTIONS)).toEqual({
      values: { dir: "b", help: true },
      positionals: ["--dir"],
    });
  });

  it("says which option was wrong", () => {
    expect(() => readOptions(["--dir"], OPTIONS)).toThrow("'--dir <value>' needs a value");
    expect(() => readOptions(["--dir", "--help"], OPTIONS)).toThrow("--dir=<value>");
    expect(() => readOptions(["--help=yes"], OPTIONS)).toThrow("'--help' does not take");
    expect(() => readOptions(["--verbose"], OPTIONS)).toThrow("Unknown option '--verbose'");
    expect(() => readOptions(["-v"], OPTIONS)).toThrow("Unknown option '-v'");
  });
});
