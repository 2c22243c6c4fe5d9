import { describe, expect, it } from "vitest";
import { todoContinuationHooks } from "../../../src/hosts/claude-agent-sdk/index.js";
import { closeInstructionFor } from "../../../src/hosts/claude-code/todos.js";
import { type MessagesBody, userTexts } from "../support/anthropic-server.js";
import { helperStopsEarly, isHelper } from "../support/claude-scripts.js";
import { firstStopDecided } from "../support/claude-session.js";
import { readSession, runSdk, sdkEnv, sdkSuite, sessionIdOf } from "./harness.js";

const suite = sdkSuite();
const MARK = closeInstructionFor("todo-write");

const mentionsNudge = (body: MessagesBody) => userTexts(body).some((t) => t.includes(MARK));

describe("Claude Agent SDK subagents", () => {
  it("never blocks a subagent's stop and keeps its list out of the parent's", async () => {
    const project = suite.project();
    // The helper stops only once the parent's own stop has been decided.
    const model = await suite.serve(helperStopsEarly(() => firstStopDecided(project)));
    const lines: string[] = [];
    const run = await runSdk(project, sdkEnv(project, model, suite.trap()), "Survey and review", {
      hooks: todoContinuationHooks({ log: (line) => lines.push(line) }),
    });
    expect(run.error, lines.join("\n")).toBeNull();
    const helperTurns = model.turns().filter(isHelper);
    // The helper wrote a list with an open item and stopped: it was let go at once.
    expect(helperTurns).toHaveLength(2);
    expect(helperTurns.some(mentionsNudge)).toBe(false);
    const { snapshot, log } = await readSession(project, sessionIdOf(run.messages));
    expect(snapshot.todos.todos.map((t) => t.content)).toEqual(["Review the survey"]);
    expect(snapshot.todos.todos[0]?.status).toBe("completed");
    // The parent stopped while the helper ran: that waits for the background work.
    expect(log.map((e) => e.reason)).toContain("background-work");
    expect(log.at(-1)?.reason).toBe("no-incomplete-todos");
  });
});
