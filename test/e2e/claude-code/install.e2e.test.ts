import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MISSING_SCRIPT_NOTE } from "../../../src/hosts/claude-code/command.js";
import { installClaudeCode } from "../../../src/hosts/claude-code/install.js";
import { reply, text, toolUse } from "../support/anthropic-server.js";
import {
  answersNudge,
  CLAUDE_CODE_OLDEST,
  CLAUDE_CODE_VERSION,
  claudeSuite,
  hookResponses,
  resultOf,
  runClaude,
} from "./harness.js";

const suite = claudeSuite();

/** A user's own settings, tab-indented: a guard hook of theirs that leaves a mark, and a rule. */
const USER_SETTINGS = `{
\t"permissions": {
\t\t"deny": [
\t\t\t"Bash(rm:*)"
\t\t]
\t},
\t"hooks": {
\t\t"UserPromptSubmit": [
\t\t\t{
\t\t\t\t"hooks": [
\t\t\t\t\t{
\t\t\t\t\t\t"type": "command",
\t\t\t\t\t\t"command": "touch \\"$CLAUDE_PROJECT_DIR/user-hook-ran\\""
\t\t\t\t\t}
\t\t\t\t]
\t\t\t}
\t\t]
\t}
}
`;

const todoWrite = (...items: [string, "pending" | "in_progress" | "completed"][]) =>
  reply(
    toolUse("TodoWrite", {
      todos: items.map(([content, status]) => ({ content, status, activeForm: content })),
    }),
  );

describe.each([CLAUDE_CODE_OLDEST, CLAUDE_CODE_VERSION])(
  "`install claude-code` on Claude Code %s",
  (version) => {
    it("writes only events this version knows: the user's hooks and ours both run", async () => {
      const project = suite.project({ version, settings: USER_SETTINGS });
      const settings = JSON.parse(
        readFileSync(join(project.dir, ".claude", "settings.json"), "utf8"),
      );
      const knowsStopFailure = version !== CLAUDE_CODE_OLDEST;
      expect(Object.hasOwn(settings.hooks, "StopFailure")).toBe(knowsStopFailure);
      if (!knowsStopFailure)
        expect(project.report).toMatch(/Left out StopFailure: Claude Code 2\.1\.75/);
      // The user's layout survives.
      expect(readFileSync(join(project.dir, ".claude", "settings.json"), "utf8")).toMatch(
        /^\t"permissions": \{$/m,
      );
      const model = await suite.serve([
        todoWrite(["Parse the config", "in_progress"], ["Write the tests", "pending"]),
        reply(text("I have started.")),
        todoWrite(["Parse the config", "completed"], ["Write the tests", "completed"]),
        reply(text("Both items are done.")),
      ]);
      const run = await runClaude(project, model, suite.trap(), {
        prompt: "Do the work",
        tools: "todo-write",
      });
      expect(run.code, hookResponses(run)).toBe(0);
      expect(existsSync(join(project.dir, "user-hook-ran"))).toBe(true);
      expect(model.turns().some((t) => answersNudge(t, "todo-write"))).toBe(true);
      expect(resultOf(run)?.result).toBe("Both items are done.");
    });
  },
);

describe("committed settings in a clone without node_modules", () => {
  it("runs Claude Code normally: one short line from each hook, no stack trace", async () => {
    const project = suite.project();
    // What a teammate's commit holds: the portable command, but no npm install here yet.
    await installClaudeCode({
      projectDir: project.dir,
      env: { HOME: project.home },
      packageRoot: join(project.dir, "node_modules", "todo-continuation"),
      claudeVersion: CLAUDE_CODE_VERSION,
      out: () => {},
    });
    mkdirSync(join(project.dir, "src"));
    const model = await suite.serve([reply(text("Hello."))]);
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Say hello",
      tools: "todo-write",
      args: ["--include-hook-events"],
    });
    expect(run.code, hookResponses(run)).toBe(0);
    expect(resultOf(run)?.result).toBe("Hello.");
    const everything = `${JSON.stringify(run.events)}\n${run.stderr}`;
    expect(everything).not.toContain("Cannot find module");
    expect(everything).not.toMatch(/at Module\._resolveFilename|node:internal/);
    // Each hook that ran said why it did nothing, in one line.
    const responses = hookResponses(run);
    expect(responses).toContain("UserPromptSubmit");
    for (const line of responses.split("\n")) {
      expect(line).toContain(JSON.stringify(`${MISSING_SCRIPT_NOTE}\n`));
    }
  });
});
