import { describe, expect, it } from "vitest";
import { reply, text, toolUse } from "../support/anthropic-server.js";
import { answersNudge, claudeSuite, hookResponses, readSession, runClaude } from "./harness.js";

const suite = claudeSuite();

describe("a resumed session", () => {
  it("keeps its list and budget: the resume buys the agent no extra nudge", async () => {
    const model = await suite.serve([
      reply(
        toolUse("TodoWrite", {
          todos: [
            { content: "Port the parser", status: "in_progress", activeForm: "Porting" },
            { content: "Port the printer", status: "pending", activeForm: "Porting" },
          ],
        }),
      ),
      reply(text("Stopping.")),
      reply(text("Stopping again.")),
      // The resumed run.
      reply(text("Not now either.")),
    ]);
    const project = suite.project();
    const first = await runClaude(project, model, suite.trap(), {
      prompt: "Port it",
      tools: "todo-write",
    });
    expect(first.code, hookResponses(first)).toBe(0);
    expect(model.turns()).toHaveLength(3);
    const sessionId = first.sessionId as string;
    const second = await runClaude(project, model, suite.trap(), {
      prompt: "Keep going",
      tools: "todo-write",
      args: ["--resume", sessionId],
    });
    expect(second.code, hookResponses(second)).toBe(0);
    expect(second.sessionId).toBe(sessionId);
    const turns = model.turns();
    expect(turns).toHaveLength(4);
    expect(turns.map((t) => answersNudge(t, "todo-write"))).toEqual([false, false, true, false]);
    const { snapshot, log } = await readSession(project, sessionId);
    expect(snapshot.todos.todos.map((t) => t.content)).toEqual([
      "Port the parser",
      "Port the printer",
    ]);
    expect(log.map((e) => e.reason ?? e.action)).toEqual([
      "inject",
      "stagnation",
      "restart-kick-suppressed",
    ]);
  });
});
