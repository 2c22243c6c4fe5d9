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

const todoWrite = (...items: [string, "pending" | "in_progress" | "completed"][]) =>
  reply(
    toolUse("TodoWrite", {
      todos: items.map(([content, status]) => ({
        content,
        status,
        activeForm: `Working on ${content}`,
      })),
    }),
  );

const suite = claudeSuite();

describe("Claude Code: the operator's controls", () => {
  it("advise mode: the lazy stopper is allowed to stop, and the log says it would have nudged", async () => {
    const model = await suite.serve([
      todoWrite(["Parse the config", "in_progress"], ["Write the tests", "pending"]),
      reply(text("Stopping early.")),
    ]);
    const project = suite.project({ config: { mode: "advise" } });
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Do the work",
      tools: "todo-write",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    // No block: the model is asked nothing more after its early stop.
    expect(model.turns()).toHaveLength(2);
    expect(model.turns().some((t) => answersNudge(t, "todo-write"))).toBe(false);
    expect(resultOf(run)?.result).toBe("Stopping early.");
    const { snapshot, log } = await readSession(project, run.sessionId as string);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ action: "inject", advise: true, autoTurns: 1 });
    // The host named the model of the turn (the transcript's message.model).
    expect(snapshot.state.lastOutcome?.model).toBe(model.turns()[1]?.model);
  });

  it("a cost limit never takes an unknown model for free: no nudge, reason max-cost", async () => {
    const script = () => [
      todoWrite(["Parse the config", "in_progress"], ["Write the tests", "pending"]),
      reply(text("Stopping early.")),
      todoWrite(["Parse the config", "completed"], ["Write the tests", "completed"]),
      reply(text("All done.")),
    ];
    const args = ["--model", "my-local-model"];
    const unpriced = await suite.serve(script());
    const project = suite.project({ config: { limits: { maxCostUsd: 5 } } });
    const run = await runClaude(project, unpriced, suite.trap(), {
      prompt: "Do the work",
      tools: "todo-write",
      args,
    });
    expect(run.code, hookResponses(run)).toBe(0);
    expect(unpriced.turns()).toHaveLength(2);
    const { log } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["max-cost"]);
  });
});
