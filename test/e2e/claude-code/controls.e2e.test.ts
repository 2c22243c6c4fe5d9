import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply, text, toolUse } from "../support/anthropic-server.js";
import { todoWrite } from "../support/claude-scripts.js";
import {
  answersNudge,
  claudeSuite,
  DIST,
  hookResponses,
  onlySessionLog,
  readSession,
  resultOf,
  runClaude,
  startClaude,
  waitFor,
} from "./harness.js";

/** Exits once a file named `go` appears in the working folder. */
const WAIT_FOR_GO =
  "const fs=require('fs');const t=setInterval(()=>{if(fs.existsSync('go')){clearInterval(t);console.log('built')}},100)";

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

  it("resume --add: a run whose budget is spent is nudged again at its next stop, without a user turn", async () => {
    const model = await suite.serve(({ turn }) => {
      switch (turn) {
        case 0:
          return todoWrite(["Build the index", "in_progress"], ["Query the index", "pending"]);
        case 1:
          return reply(text("Stopping for now."));
        case 2:
          // Answers the one nudge the budget allows with a background job that finishes when
          // the test says so: its notification starts a turn that is not the user's.
          return reply(
            toolUse("Bash", {
              command: `node -e "${WAIT_FOR_GO}"`,
              description: "Build the index in the background",
              run_in_background: true,
            }),
          );
        case 3:
          return reply(text("Waiting on the build."));
        case 4:
          // Claude Code's own notification turn: progress, then an early stop.
          return todoWrite(["Build the index", "completed"], ["Query the index", "pending"]);
        case 5:
          return reply(text("The build is done; stopping here."));
        case 6:
          return todoWrite(["Build the index", "completed"], ["Query the index", "completed"]);
        default:
          return reply(text("Both items are done."));
      }
    });
    const project = suite.project({ config: { limits: { maxAutoTurns: 1 } } });
    const claude = startClaude(project, model, suite.trap(), {
      prompt: "Index and query",
      tools: "todo-write",
      streamInput: true,
    });
    const cli = (...args: string[]) =>
      execFileSync(
        process.execPath,
        [
          join(DIST, "cli", "main.js"),
          "--dir",
          join(project.dir, ".claude", "todo-continuation"),
          ...args,
        ],
        { encoding: "utf8", timeout: 60_000 },
      );
    try {
      const before = await waitFor("the stop while the job runs", async () => {
        const log = await onlySessionLog(project);
        return log.length >= 2 ? log : undefined;
      });
      expect(before.map((e) => e.reason ?? e.action)).toEqual(["inject", "background-work"]);
      const sessionKey = /"session_id":"([^"]+)"/.exec(claude.output())?.[1] as string;
      // The project's one nudge is spent (the CLI judges by its preset, where this is stagnation).
      expect(JSON.parse(cli("why", sessionKey, "--json")).episode.raised).toBeNull();
      expect(cli("resume", sessionKey, "--add", "nudges=3")).toContain("+3 nudges");
      expect(cli("why", sessionKey)).toContain("limits raised by the user: +3 nudges");
      writeFileSync(join(project.dir, "go"), "");
      await waitFor("the turns after the notification", () =>
        model.turns().length >= 8 ? true : undefined,
      );
    } finally {
      claude.end();
    }
    const run = await claude.done;
    const turns = model.turns();
    expect(turns).toHaveLength(8);
    // Exactly the requests after the first early stop and after the raise answer a nudge.
    const answered = turns.flatMap((t, i) => (answersNudge(t, "todo-write") ? [i] : []));
    expect(answered).toEqual([2, 6]);
    const { log, snapshot } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason ?? e.action)).toEqual([
      "inject",
      "background-work",
      "raised",
      "inject",
      "no-incomplete-todos",
    ]);
    expect(log[2]?.note).toBe("+3 nudges");
    expect(snapshot.state.episode?.raised?.nudges).toBe(3);
    expect(snapshot.state.episode?.autoTurns).toBe(2);
  });
});
