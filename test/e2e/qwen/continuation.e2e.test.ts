import { describe, expect, it } from "vitest";
import { textReply } from "../support/openai-server.js";
import {
  answersNudge,
  mentionsNudge,
  QWEN_OLDEST,
  QWEN_VERSION,
  qwenSuite,
  readSession,
  resultOf,
  runQwen,
  stopsEarlyTwice,
  todoWrite,
} from "./harness.js";

describe.each([QWEN_VERSION, QWEN_OLDEST])(
  "Qwen Code with the todo-continuation hooks (Qwen Code %s)",
  (version) => {
    const suite = qwenSuite(version);

    it("nudges an agent that stops early until its list is done", async () => {
      const model = await suite.serve(stopsEarlyTwice());
      const project = suite.project();
      const run = await runQwen(project, model, suite.trap(), { prompt: "Do the work" });
      expect(run.code, run.stderr).toBe(0);
      const requests = model.chatRequests();
      expect(requests.map(answersNudge)).toEqual([false, false, true, false, true, false]);
      const first = JSON.stringify(requests[2]?.body.messages.at(-1));
      expect(first).toContain("Parse the config");
      expect(first).toContain("Write the tests");
      expect(resultOf(run)?.result).toBe("Both items are done.");
      const { snapshot, log } = await readSession(project, run.sessionId as string);
      expect(snapshot.todos.todos.map((t) => t.status)).toEqual(["completed", "completed"]);
      expect(log.map((e) => e.reason ?? e.action)).toEqual([
        "inject",
        "inject",
        "no-incomplete-todos",
      ]);
    });

    it("lets an agent that never progresses go, with the reason logged", async () => {
      const model = await suite.serve([
        todoWrite(["Migrate the database", "in_progress"], ["Update the docs", "pending"]),
        textReply("Stopping for now."),
        textReply("Still stopping."),
        textReply("Stopping again."),
      ]);
      const project = suite.project();
      const run = await runQwen(project, model, suite.trap(), { prompt: "Migrate" });
      expect(run.code, run.stderr).toBe(0);
      expect(model.chatRequests()).toHaveLength(3);
      expect(model.chatRequests().filter(answersNudge)).toHaveLength(1);
      // Qwen's result joins the texts of the whole prompt's turn.
      expect(resultOf(run)?.result).toBe("Stopping for now.Still stopping.");
      const { log } = await readSession(project, run.sessionId as string);
      expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "stagnation"]);
    });

    it("does not block a stop when every item is done", async () => {
      const model = await suite.serve([
        todoWrite(["Fix the bug", "completed"], ["Add a test", "completed"]),
        textReply("All done."),
      ]);
      const project = suite.project();
      const run = await runQwen(project, model, suite.trap(), { prompt: "Fix it" });
      expect(run.code, run.stderr).toBe(0);
      expect(model.chatRequests()).toHaveLength(2);
      expect(model.chatRequests().some(mentionsNudge)).toBe(false);
      const { log } = await readSession(project, run.sessionId as string);
      expect(log.map((e) => e.reason)).toEqual(["no-incomplete-todos"]);
    });
  },
);
