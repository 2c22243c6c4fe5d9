import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageCopy } from "../support/package-copy.js";
import { answersNudge, cli, qwenSuite, readSession, runQwen, stopsEarlyTwice } from "./harness.js";

const suite = qwenSuite();
const copies = mkdtempSync(join(tmpdir(), "tc-qwen-copies-"));
afterAll(() => rmSync(copies, { recursive: true, force: true }));

/** Runs the early stopper: each of its two early stops must be decided once. */
async function oneDecisionPerStop(project: ReturnType<typeof suite.project>): Promise<void> {
  const model = await suite.serve(stopsEarlyTwice());
  const run = await runQwen(project, model, suite.trap(), { prompt: "Do the work" });
  expect(run.code, run.stderr).toBe(0);
  expect(model.chatRequests().map(answersNudge)).toEqual([false, false, true, false, true, false]);
  const { log } = await readSession(project, run.sessionId as string);
  expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "inject", "no-incomplete-todos"]);
}

/**
 * Ours in the project's settings and the user's: Qwen Code (0.24.4) drops a hook whose name and
 * command it has already (`deduplicateHooks`), and both installs from one copy of the package
 * write the same command, so each event runs once. Two copies of the package write two commands,
 * and Qwen Code runs both: the claim each makes per event (hook-kit/event-claim.ts) leaves each
 * event to one of them.
 */
describe("Qwen Code with our hooks in both the project's and the user's settings", () => {
  it("runs ours once per event: one decision per stop", async () => {
    const project = suite.project();
    cli(project, ["install", "qwen", "--user"]);
    await oneDecisionPerStop(project);
  });

  it("from two copies of the package (a global one and the project's): one decision per stop", async () => {
    const project = suite.project();
    // Two commands, each its copy's: Qwen Code runs both for every event.
    cli(project, ["install", "qwen", "--user"], packageCopy(copies));
    await oneDecisionPerStop(project);
  });

  it("from two copies, with the user's groups sequential (Qwen then runs them one after another)", async () => {
    const project = suite.project();
    cli(project, ["install", "qwen", "--user"], packageCopy(copies));
    // Any sequential group of an event makes Qwen Code run all of that event's hooks in turn: the
    // second copy starts when the first has ended, and must still find its claim a twin's.
    const path = join(project.home, ".qwen", "settings.json");
    const settings = JSON.parse(readFileSync(path, "utf8")) as {
      hooks: Record<string, { sequential?: boolean }[]>;
    };
    for (const groups of Object.values(settings.hooks)) {
      for (const group of groups) group.sequential = true;
    }
    writeFileSync(path, JSON.stringify(settings, null, 2));
    await oneDecisionPerStop(project);
  });
});
