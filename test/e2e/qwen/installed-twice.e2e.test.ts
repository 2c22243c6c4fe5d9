import { describe, expect, it } from "vitest";
import { answersNudge, cli, qwenSuite, readSession, runQwen, stopsEarlyTwice } from "./harness.js";

const suite = qwenSuite();

/**
 * Ours in the project's settings and the user's: Qwen Code (0.24.4) drops a hook whose name and
 * command it has already (`deduplicateHooks`), and both installs write the same command, so each
 * event runs once. Were the two commands ever to differ, each stop would be decided twice.
 */
describe("Qwen Code with our hooks in both the project's and the user's settings", () => {
  it("runs ours once per event: one decision per stop", async () => {
    const model = await suite.serve(stopsEarlyTwice());
    const project = suite.project();
    cli(project, ["install", "qwen", "--user"]);
    const run = await runQwen(project, model, suite.trap(), { prompt: "Do the work" });
    expect(run.code, run.stderr).toBe(0);
    expect(model.chatRequests().map(answersNudge)).toEqual([
      false,
      false,
      true,
      false,
      true,
      false,
    ]);
    const { log } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason ?? e.action)).toEqual([
      "inject",
      "inject",
      "no-incomplete-todos",
    ]);
  });
});
