import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stopsEarlyTwice } from "../support/claude-scripts.js";
import { claudeSuite, hookResponses, readSession, runClaude } from "./harness.js";

const suite = claudeSuite();

/**
 * Ours in the project's settings and the user's: Claude Code runs a hook command it has already
 * once, and both installs write the same command, so each event runs once. Were the two commands
 * ever to differ, each stop would be decided twice (the second seeing no progress since the
 * first's nudge, `stagnation`).
 */
describe("Claude Code with our hooks in both the project's and the user's settings", () => {
  it("runs ours once per event: one decision per stop", async () => {
    const model = await suite.serve(stopsEarlyTwice());
    const project = suite.project({ alsoUser: true });
    for (const settings of [join(project.dir, ".claude"), join(project.home, ".claude")]) {
      const { hooks } = JSON.parse(readFileSync(join(settings, "settings.json"), "utf8")) as {
        hooks: Record<string, { hooks: { command: string }[] }[]>;
      };
      const commands = Object.values(hooks).flatMap((groups) =>
        groups.flatMap((g) => g.hooks.map((h) => h.command)),
      );
      expect(commands).toContain(project.hookCommand);
    }
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Do the work",
      tools: "todo-write",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    expect(model.turns()).toHaveLength(6);
    const { log } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason ?? e.action)).toEqual([
      "inject",
      "inject",
      "no-incomplete-todos",
    ]);
  });
});
