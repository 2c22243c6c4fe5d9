import { describe, expect, it } from "vitest";
import {
  dashboardCommand,
  exploreCommands,
  invocation,
  type ScenarioReport,
  shellWord,
  summaryLines,
} from "./summary.js";

const report = (name: string, pass: boolean): ScenarioReport => ({
  name,
  title: name,
  pass,
  detail: `${name} detail`,
  scope: `session/sdemo.s${name}`,
  nudges: 1,
  decisions: ["inject"],
});

describe("summaryLines", () => {
  it("prints one PASS or FAIL line per scenario and a total", () => {
    expect(summaryLines([report("a", true), report("b", false)])).toEqual([
      "PASS a: a detail",
      "FAIL b: b detail",
      "1/2 scenarios passed",
    ]);
  });
});

describe("invocation", () => {
  it("uses the installed command name when run through the bin", () => {
    expect(invocation("/usr/local/bin/todo-continuation", "/home/u")).toBe("todo-continuation");
    expect(invocation(undefined, "/")).toBe("todo-continuation");
  });

  it("points node at the script, relative to the folder when inside it", () => {
    expect(invocation("/repo/dist/cli/main.js", "/repo")).toBe("node dist/cli/main.js");
    expect(invocation("/repo/dist/cli/main.js", "/elsewhere")).toBe("node /repo/dist/cli/main.js");
  });
});

describe("shellWord and exploreCommands", () => {
  it("quotes only what a shell would split", () => {
    expect(shellWord("/tmp/demo-1")).toBe("/tmp/demo-1");
    expect(shellWord("/tmp/my demo")).toBe("'/tmp/my demo'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
  });

  it("names the demo folder in every command", () => {
    const commands = exploreCommands("todo-continuation", "/tmp/d");
    expect(commands[0]).toBe("todo-continuation --dir /tmp/d list");
    expect(commands.every((c) => c.includes("--dir /tmp/d"))).toBe(true);
    expect(dashboardCommand("todo-continuation", "/tmp/my d")).toBe(
      "todo-continuation --dir '/tmp/my d' ui --open",
    );
  });
});
