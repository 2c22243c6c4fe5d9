import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUILT_CLI } from "../support/built-cli.js";
import { stopsEarlyTwice } from "../support/claude-scripts.js";
import { packageCopy } from "../support/package-copy.js";
import { claudeSuite, hookResponses, readSession, runClaude } from "./harness.js";

const suite = claudeSuite();
const copies = mkdtempSync(join(tmpdir(), "tc-claude-copies-"));
afterAll(() => rmSync(copies, { recursive: true, force: true }));

/**
 * Runs the early stopper (two early stops, each nudged, then done) in `project`: one decision per
 * stop. Decided twice, the second of a pair would end the episode (`stagnation`) after one nudge.
 */
async function oneDecisionPerStop(
  project: ReturnType<typeof suite.project>,
  model: Awaited<ReturnType<typeof suite.serve>>,
): Promise<void> {
  const run = await runClaude(project, model, suite.trap(), {
    prompt: "Do the work",
    tools: "todo-write",
  });
  expect(run.code, hookResponses(run)).toBe(0);
  expect(model.turns()).toHaveLength(6);
  const { log } = await readSession(project, run.sessionId as string);
  expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "inject", "no-incomplete-todos"]);
}

/** The hook commands in a settings file. */
function hookCommands(settings: string): string[] {
  const { hooks } = JSON.parse(readFileSync(join(settings, "settings.json"), "utf8")) as {
    hooks: Record<string, { hooks: { command: string }[] }[]>;
  };
  return Object.values(hooks).flatMap((groups) =>
    groups.flatMap((g) => g.hooks.map((h) => h.command)),
  );
}

/**
 * Ours in the project's settings and the user's: Claude Code runs a hook command it has already
 * once, and both installs from one copy of the package write the same command, so each event
 * runs once. Two copies of the package write two commands, and Claude Code runs both: the claim
 * each makes per event (hook-kit/event-claim.ts) leaves each event to one of them.
 */
describe("Claude Code with our hooks in both the project's and the user's settings", () => {
  it("runs ours once per event: one decision per stop", async () => {
    const model = await suite.serve(stopsEarlyTwice());
    const project = suite.project({ alsoUser: true });
    for (const settings of [join(project.dir, ".claude"), join(project.home, ".claude")]) {
      expect(hookCommands(settings)).toContain(project.hookCommand);
    }
    await oneDecisionPerStop(project, model);
  });

  it("from two copies of the package (a global one and the project's): one decision per stop", async () => {
    const model = await suite.serve(stopsEarlyTwice());
    const project = suite.project({ alsoUser: packageCopy(copies) });
    // Two commands, each its copy's: Claude Code runs both for every event, side by side.
    const user = hookCommands(join(project.home, ".claude"));
    expect(user).not.toContain(project.hookCommand);
    expect(user.join("\n")).toContain(join(copies, "global-copy"));
    await oneDecisionPerStop(project, model);
    // `doctor` sees the two commands, and both copies say in their --help that one handles each event.
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: project.home };
    delete env.CLAUDE_CONFIG_DIR;
    const doctor = spawnSync(process.execPath, [BUILT_CLI, "doctor"], {
      cwd: project.dir,
      env,
      encoding: "utf8",
    });
    expect(doctor.stdout).toMatch(
      /ok +claude-code ours is in .* with different commands: both run for every event, and one handles each/,
    );
  });
});
