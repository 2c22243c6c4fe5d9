import { describe, expect, it } from "vitest";
import { reply, text, toolUse } from "../support/anthropic-server.js";
import {
  answersNudge,
  claudeSuite,
  hookResponses,
  readSession,
  resultOf,
  runClaude,
} from "./harness.js";

const suite = claudeSuite();

describe("Claude Code with the todo-continuation hooks (Task tools)", () => {
  it("follows TaskCreate/TaskUpdate by id and tells the agent to close items with TaskUpdate", async () => {
    const model = await suite.serve([
      reply(toolUse("TaskCreate", { subject: "Add the endpoint", description: "GET /health" })),
      reply(toolUse("TaskCreate", { subject: "Remove the old route", description: "it is dead" })),
      reply(toolUse("TaskUpdate", { taskId: "1", status: "in_progress" })),
      reply(text("The endpoint is under way.")),
      reply(toolUse("TaskUpdate", { taskId: "1", status: "completed" })),
      reply(toolUse("TaskUpdate", { taskId: "2", status: "deleted" })),
      reply(text("Done: the endpoint exists and the old route needed no change.")),
    ]);
    const project = suite.project();
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Add a health check",
      tools: "tasks",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    const turns = model.turns();
    expect(turns).toHaveLength(7);
    expect(turns.map((t) => answersNudge(t, "tasks"))).toEqual([
      false,
      false,
      false,
      false,
      true,
      false,
      false,
    ]);
    const nudge = JSON.stringify(turns[4]?.messages.at(-1));
    expect(nudge).toContain("[1] Add the endpoint");
    expect(nudge).toContain("[2] Remove the old route");
    expect(nudge).toContain("TaskUpdate");
    expect(resultOf(run)?.result).toMatch(/^Done/);
    const { snapshot, log } = await readSession(project, run.sessionId as string);
    expect(snapshot.todos.todos).toEqual([
      { id: "1", content: "Add the endpoint", status: "completed" },
    ]);
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "no-incomplete-todos"]);
  });
});
