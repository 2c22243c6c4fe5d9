import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply, text, toolUse } from "../support/anthropic-server.js";
import {
  answersNudge,
  claudeSuite,
  onlySessionLog,
  readSession,
  startClaude,
  waitFor,
} from "./harness.js";

const suite = claudeSuite();

/** Exits once a file named `go` appears in the working folder. */
const WAIT_FOR_GO =
  "const fs=require('fs');const t=setInterval(()=>{if(fs.existsSync('go')){clearInterval(t);console.log('indexed')}},100)";

const list = (status: "pending" | "in_progress" | "completed", second: "pending" | "completed") =>
  reply(
    toolUse("TodoWrite", {
      todos: [
        { content: "Build the index", status, activeForm: "Building" },
        { content: "Query the index", status: second, activeForm: "Querying" },
      ],
    }),
  );

describe("the user's interrupt", () => {
  it("holds through turns Claude Code starts on its own, until the user speaks again", async () => {
    const model = await suite.serve(({ turn }) => {
      switch (turn) {
        case 0:
          return list("in_progress", "pending");
        case 1:
          // A background job that finishes when the test says so.
          return reply(
            toolUse("Bash", {
              command: `node -e "${WAIT_FOR_GO}"`,
              description: "Build the index in the background",
              run_in_background: true,
            }),
          );
        case 2:
          // Still streaming when the user presses Esc.
          return { content: [text("Thinking...")], hang: true };
        case 3:
          // The background job finished: Claude Code wakes the session with a notification.
          return reply(text("The background build finished."));
        case 4:
          // The user spoke: the agent works its list again, then stops early.
          return list("completed", "pending");
        case 5:
          return reply(text("Stopping here for now."));
        case 6:
          return list("completed", "completed");
        default:
          return reply(text("Both items are done."));
      }
    });
    const project = suite.project();
    const claude = startClaude(project, model, suite.trap(), {
      prompt: "Index and query",
      tools: "todo-write",
      streamInput: true,
    });
    try {
      await waitFor("the third model request", () =>
        model.turns().length >= 3 ? true : undefined,
      );
      claude.interrupt();
      await waitFor("the interrupt to land", () =>
        claude.output().includes("[Request interrupted by user]") ? true : undefined,
      );
      writeFileSync(join(project.dir, "go"), "");
      const afterWake = await waitFor("the decision after the notification turn", async () => {
        const log = await onlySessionLog(project);
        return log.length > 0 ? log : undefined;
      });
      expect(afterWake.map((e) => e.reason)).toEqual(["user-abort-blocked"]);
      expect(model.turns()).toHaveLength(4);
      claude.say("Please carry on with the list.");
      await waitFor("the turns after the user spoke", () =>
        model.turns().length >= 8 ? true : undefined,
      );
    } finally {
      claude.end();
    }
    const run = await claude.done;
    const turns = model.turns();
    expect(turns).toHaveLength(8);
    // Nothing answered a nudge until the user spoke; then one early stop was nudged.
    expect(turns.map((t) => answersNudge(t, "todo-write"))).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      true,
      false,
    ]);
    const { log } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason ?? e.action)).toEqual([
      "user-abort-blocked",
      "inject",
      "no-incomplete-todos",
    ]);
  });
});
