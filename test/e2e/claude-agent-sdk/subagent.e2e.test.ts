import { describe, expect, it } from "vitest";
import { todoContinuationHooks } from "../../../src/hosts/claude-agent-sdk/index.js";
import { closeInstructionFor } from "../../../src/hosts/claude-code/todos.js";
import { waitFor } from "../claude-code/harness.js";
import { type MessagesBody, reply, text, toolUse, userTexts } from "../support/anthropic-server.js";
import { onlySessionLog, readSession, runSdk, sdkEnv, sdkSuite, sessionIdOf } from "./harness.js";

const suite = sdkSuite();
const HELPER_TASK = "HELPER: survey the logs";
const MARK = closeInstructionFor("todo-write");

const isHelper = (body: MessagesBody) => userTexts(body).some((t) => t.includes(HELPER_TASK));
const mentionsNudge = (body: MessagesBody) => userTexts(body).some((t) => t.includes(MARK));

describe("Claude Agent SDK subagents", () => {
  it("never blocks a subagent's stop and keeps its list out of the parent's", async () => {
    let parent = 0;
    let helper = 0;
    const project = suite.project();
    // The helper stops only once the parent's own stop has been decided.
    const parentStopped = () =>
      waitFor("the parent's first stop decision", async () =>
        (await onlySessionLog(project)).length > 0 ? true : undefined,
      );
    const model = await suite.serve(({ body }) => {
      if (isHelper(body)) {
        helper++;
        return helper === 1
          ? reply(
              toolUse("TodoWrite", {
                todos: [{ content: "Helper's own item", status: "pending", activeForm: "x" }],
              }),
            )
          : { content: [text("Helper stopping early.")], gate: parentStopped() };
      }
      parent++;
      switch (parent) {
        case 1:
          return reply(
            toolUse("TodoWrite", {
              todos: [
                { content: "Review the survey", status: "in_progress", activeForm: "Reviewing" },
              ],
            }),
          );
        case 2:
          return reply(
            toolUse("Agent", {
              description: "survey",
              prompt: HELPER_TASK,
              subagent_type: "general-purpose",
            }),
          );
        case 3:
          return reply(text("Waiting for the helper."));
        case 4:
          return reply(
            toolUse("TodoWrite", {
              todos: [
                { content: "Review the survey", status: "completed", activeForm: "Reviewing" },
              ],
            }),
          );
        default:
          return reply(text("Reviewed."));
      }
    });
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
