import { describe, expect, it } from "vitest";
import { type MessagesBody, reply, text, toolUse, userTexts } from "../support/anthropic-server.js";
import {
  claudeSuite,
  hookResponses,
  mentionsNudge,
  onlySessionLog,
  readSession,
  runClaude,
  waitFor,
} from "./harness.js";

const suite = claudeSuite();
const HELPER_TASK = "HELPER: survey the logs";

const isHelper = (body: MessagesBody) => userTexts(body).some((t) => t.includes(HELPER_TASK));

describe("Claude Code subagents", () => {
  it("never blocks a subagent's stop and keeps its list out of the parent's", async () => {
    let parent = 0;
    let helper = 0;
    const project = suite.project();
    // The helper finishes only once the parent's own stop has been decided, so
    // that stop always sees the helper still running.
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
