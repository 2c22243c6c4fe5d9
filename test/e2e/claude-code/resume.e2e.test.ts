import { describe, expect, it } from "vitest";
import { reply, text, toolUse } from "../support/anthropic-server.js";
import { answersNudge, claudeSuite, hookResponses, readSession, runClaude } from "./harness.js";

const suite = claudeSuite();

describe("a resumed session", () => {
  it("keeps its list; a new prompt that leaves the list alone is not nudged", async () => {
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
    // The resume line promises only what holds: this run's prompt disarms the kick.
    expect(hookResponses(second)).toMatch(
      /session resumed with 2 open todo items; a stop before your next prompt is not nudged, and after a prompt the agent is nudged once it works its list again/,
    );
    expect(hookResponses(second)).not.toMatch(/first stop will not be nudged/);
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
      "list-unchanged-since-user",
    ]);
  });

  it("with a new prompt, is nudged exactly like a fresh session", async () => {
    const plan = (parser: string, printer: string) =>
      toolUse("TodoWrite", {
        todos: [
          { content: "Port the parser", status: parser, activeForm: "Porting" },
          { content: "Port the printer", status: printer, activeForm: "Porting" },
        ],
      });
    const model = await suite.serve([
      reply(plan("in_progress", "pending")),
      reply(text("Stopping.")),
      reply(text("Stopping again.")),
      // The resumed run: the agent works its list, stops early, is nudged, and finishes.
      reply(plan("completed", "in_progress")),
      reply(text("Parser done.")),
      reply(plan("completed", "completed")),
      reply(text("All done.")),
    ]);
    const project = suite.project();
    const first = await runClaude(project, model, suite.trap(), {
      prompt: "Port it",
      tools: "todo-write",
    });
    expect(first.code, hookResponses(first)).toBe(0);
    const sessionId = first.sessionId as string;
    const second = await runClaude(project, model, suite.trap(), {
      prompt: "Keep going",
      tools: "todo-write",
      args: ["--resume", sessionId],
    });
    expect(second.code, hookResponses(second)).toBe(0);
    const turns = model.turns();
    expect(turns).toHaveLength(7);
    expect(turns.slice(3).map((t) => answersNudge(t, "todo-write"))).toEqual([
      false,
      false,
      true,
      false,
    ]);
    const { snapshot, log } = await readSession(project, sessionId);
    expect(snapshot.todos.todos.map((t) => t.status)).toEqual(["completed", "completed"]);
    expect(log.slice(2).map((e) => e.reason ?? e.action)).toEqual([
      "inject",
      "no-incomplete-todos",
    ]);
  });
});
