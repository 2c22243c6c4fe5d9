import { describe, expect, it } from "vitest";
import { helperStopsEarly, isHelper } from "../support/claude-scripts.js";
import { firstStopDecided } from "../support/claude-session.js";
import { claudeSuite, hookResponses, mentionsNudge, readSession, runClaude } from "./harness.js";

const suite = claudeSuite();

describe("Claude Code subagents", () => {
  it("never blocks a subagent's stop and keeps its list out of the parent's", async () => {
    const project = suite.project();
    // The helper finishes only once the parent's own stop has been decided, so
    // that stop always sees the helper still running.
    const model = await suite.serve(helperStopsEarly(() => firstStopDecided(project)));
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Survey and review",
      tools: "todo-write",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    const helperTurns = model.turns().filter(isHelper);
    // The helper wrote a list with an open item and stopped: it was let go at once.
    expect(helperTurns).toHaveLength(2);
    expect(helperTurns.some((t) => mentionsNudge(t, "todo-write"))).toBe(false);
    const { snapshot, log } = await readSession(project, run.sessionId as string);
    expect(snapshot.todos.todos.map((t) => t.content)).toEqual(["Review the survey"]);
    expect(snapshot.todos.todos[0]?.status).toBe("completed");
    // The parent stopped while the helper ran: that waits for the background work.
    expect(log.map((e) => e.reason)).toContain("background-work");
    expect(log.at(-1)?.reason).toBe("no-incomplete-todos");
  });
});
