import { describe, expect, it } from "vitest";
import { reply, type ScriptedReply, text } from "../support/anthropic-server.js";
import { stopsEarlyTwice, todoWrite } from "../support/claude-scripts.js";
import {
  answersNudge,
  claudeSuite,
  hookResponses,
  mentionsNudge,
  readSession,
  resultOf,
  runClaude,
} from "./harness.js";

const suite = claudeSuite();

describe("Claude Code with the todo-continuation hooks (TodoWrite)", () => {
  it("nudges an agent that stops early until its list is done", async () => {
    const model = await suite.serve(stopsEarlyTwice());
    const project = suite.project();
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Do the work",
      tools: "todo-write",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    const turns = model.turns();
    expect(turns).toHaveLength(6);
    // The answers to the two early stops are exactly the requests that carry a nudge.
    expect(turns.map((t) => answersNudge(t, "todo-write"))).toEqual([
      false,
      false,
      true,
      false,
      true,
      false,
    ]);
    const first = JSON.stringify(turns[2]?.messages.at(-1));
    expect(first).toContain("Parse the config");
    expect(first).toContain("Write the tests");
    expect(resultOf(run)?.result).toBe("Both items are done.");
    const { snapshot, log } = await readSession(project, run.sessionId as string);
    expect(snapshot.todos.todos.every((t) => t.status === "completed")).toBe(true);
    expect(log.map((e) => e.reason ?? e.action)).toEqual([
      "inject",
      "inject",
      "no-incomplete-todos",
    ]);
  });

  it("lets an agent that never progresses go at the budget, with the reason logged", async () => {
    const model = await suite.serve([
      todoWrite(["Migrate the database", "in_progress"], ["Update the docs", "pending"]),
      reply(text("Stopping for now.")),
      reply(text("Still stopping.")),
      reply(text("Stopping again.")),
    ]);
    const project = suite.project();
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Migrate",
      tools: "todo-write",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    // One nudge, then the default preset's strict progress check lets the agent go.
    expect(model.turns()).toHaveLength(3);
    expect(model.turns().filter((t) => answersNudge(t, "todo-write"))).toHaveLength(1);
    expect(resultOf(run)?.result).toBe("Still stopping.");
    const { log } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "stagnation"]);
  });

  it("holds its turn budget when every answer calls a tool (which resets Claude Code's own cap)", async () => {
    // The agent rewrites its list after every nudge but never finishes; the
    // typeclaw preset allows 3 nudges and judges progress by fingerprint.
    const script: ScriptedReply[] = [
      todoWrite(["Refactor", "in_progress"], ["Benchmark", "pending"]),
    ];
    for (let i = 0; i < 8; i++) {
      script.push(reply(text(`Pausing (${i}).`)));
      script.push(
        todoWrite(["Refactor", i % 2 === 0 ? "pending" : "in_progress"], ["Benchmark", "pending"]),
      );
    }
    const model = await suite.serve(script);
    const project = suite.project({ preset: "typeclaw" });
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Refactor",
      tools: "todo-write",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    expect(model.turns().filter((t) => answersNudge(t, "todo-write"))).toHaveLength(3);
    expect(model.turns()).toHaveLength(8);
    const { log } = await readSession(project, run.sessionId as string);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "max-auto-turns", autoTurns: 3 });
  });

  it("does not block a stop when every item is done", async () => {
    const model = await suite.serve([
      todoWrite(["Fix the bug", "completed"], ["Add a test", "completed"]),
      reply(text("All done.")),
    ]);
    const project = suite.project();
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Fix it",
      tools: "todo-write",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    expect(model.turns()).toHaveLength(2);
    expect(model.turns().some((t) => mentionsNudge(t, "todo-write"))).toBe(false);
    const { log } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason)).toEqual(["no-incomplete-todos"]);
  });

  it("never answers an API error with a nudge", async () => {
    const model = await suite.serve([
      todoWrite(["Deploy", "in_progress"]),
      { error: { status: 500, type: "api_error", message: "upstream failed" } },
    ]);
    const project = suite.project();
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Deploy",
      tools: "todo-write",
      env: { CLAUDE_CODE_MAX_RETRIES: "0" },
    });
    expect(resultOf(run)?.is_error).toBe(true);
    expect(model.turns()).toHaveLength(2);
    expect(model.turns().some((t) => mentionsNudge(t, "todo-write"))).toBe(false);
    const { log } = await readSession(project, run.sessionId as string);
    expect(log.filter((e) => e.action === "inject")).toEqual([]);
  });
});
