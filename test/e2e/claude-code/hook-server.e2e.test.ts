import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stopsEarlyTwice } from "../support/claude-scripts.js";
import { hookServerEnv } from "../support/hook-server-setup.js";
import {
  answersNudge,
  claudeSuite,
  DIST,
  hookResponses,
  readSession,
  runClaude,
  waitFor,
} from "./harness.js";

const suite = claudeSuite();

describe("Claude Code's hooks answered by the resident hook server", () => {
  it("keeps an agent going exactly as hooks that run alone do, every event answered by the server", async () => {
    const runtime = hookServerEnv().TODO_CONTINUATION_RUNTIME_DIR;
    expect(runtime, "the e2e run's hook server folder").toBeDefined();
    const model = await suite.serve(stopsEarlyTwice());
    const project = suite.project();
    // A first hook event starts the server (it runs that event itself).
    const warm = spawnSync(
      process.execPath,
      [join(DIST, "hook", "main.cjs"), "hook", "claude-code"],
      {
        input: JSON.stringify({
          hook_event_name: "Notification",
          session_id: "warm",
          cwd: project.dir,
        }),
        env: { PATH: process.env.PATH, HOME: project.home, ...hookServerEnv() },
        encoding: "utf8",
      },
    );
    expect(warm.status).toBe(0);
    const pid = await waitFor("the hook server's pid file", () => {
      const file = readdirSync(runtime as string).find((n) => n.endsWith(".pid"));
      return file === undefined
        ? undefined
        : Number(readFileSync(join(runtime as string, file), "utf8"));
    });
    expect(pid).toBeGreaterThan(0);
    // `require`: an event the server does not answer is not run by the hook either.
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Do the work",
      tools: "todo-write",
      env: { TODO_CONTINUATION_HOOK_SERVER: "require" },
    });
    expect(run.code, hookResponses(run)).toBe(0);
    expect(hookResponses(run)).not.toContain("did not answer");
    const turns = model.turns();
    expect(turns.map((t) => answersNudge(t, "todo-write"))).toEqual([
      false,
      false,
      true,
      false,
      true,
      false,
    ]);
    const { snapshot, log } = await readSession(project, run.sessionId as string);
    expect(snapshot.todos.todos.every((t) => t.status === "completed")).toBe(true);
    expect(log.map((e) => e.reason ?? e.action)).toEqual([
      "inject",
      "inject",
      "no-incomplete-todos",
    ]);
  });
});
