import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countedFailingCheck, expectParentCheckedOnce } from "../support/counted-check.js";
import {
  answer,
  call,
  type GeminiCall,
  type GeminiServer,
  say,
  startGeminiServer,
} from "../support/gemini-server.js";
import {
  type GeminiProject,
  geminiBin,
  makeProject,
  ourCli,
  runGemini,
  sessionIdOf,
  storedState,
} from "./gemini-world.js";

/**
 * The real Gemini CLI with a project `verify`. The scripted model stands in
 * for the agent's edit: when the verification nudge reaches it, it writes the
 * missing file into the project and says so; what is tested is the hook's
 * part (a nudge with the failure, then a pass as verified).
 */

const projects: GeminiProject[] = [];
const servers: GeminiServer[] = [];
beforeAll(() => {
  geminiBin();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const p of projects) p.cleanup();
});

const todo = (description: string, status: string) => ({ description, status });

const CHECK = "test -f done.txt || { echo 'done.txt is missing'; exit 4; }";

async function project(config: unknown, trusted: boolean): Promise<GeminiProject> {
  const p = makeProject();
  projects.push(p);
  execFileSync("git", ["init", "-q", p.dir]);
  writeFileSync(join(p.dir, "todo-continuation.config.json"), JSON.stringify(config));
  const install = await ourCli(p, ["install", "gemini", "--project"]);
  expect(install.code, install.stderr).toBe(0);
  if (trusted) expect((await ourCli(p, ["trust"])).code).toBe(0);
  return p;
}

async function server(script: (call: GeminiCall) => ReturnType<typeof answer>) {
  const s = await startGeminiServer({ script });
  servers.push(s);
  return s;
}

describe("Gemini CLI 0.61.0 with a project verify", () => {
  it("nudges a false finish with the failing check, then lets the stop pass as verified", async () => {
    const p = await project({ verify: { command: CHECK, timeoutMs: 20_000 } }, true);
    const settings = JSON.parse(readFileSync(join(p.dir, ".gemini", "settings.json"), "utf8"));
    expect(settings.hooks.AfterAgent[0].hooks[0].timeout).toBe(81_000);
    const gemini = await server((c) => {
      if (c.turn === 0) {
        return answer(
          call("write_todos", { todos: [{ description: "Create done.txt", status: "completed" }] }),
        );
      }
      if (c.lastUserText.includes("done.txt is missing")) {
        writeFileSync(join(p.dir, "done.txt"), "ok\n");
        return answer(say("Created done.txt."));
      }
      return answer(say("Everything is done."));
    });
    const run = await runGemini(p, gemini, "Create done.txt");
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(p.dir, "done.txt"))).toBe(true);
    const { log } = await storedState(p, sessionIdOf(run.stdout));
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "verified"]);
  });

  it("runs nothing from an untrusted config", async () => {
    const p = await project({ verify: { command: "touch ran.txt; exit 1" } }, false);
    const gemini = await server((c) =>
      c.turn === 0
        ? answer(call("write_todos", { todos: [{ description: "Tidy", status: "completed" }] }))
        : answer(say("All tidy.")),
    );
    const run = await runGemini(p, gemini, "Tidy up");
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(p.dir, "ran.txt"))).toBe(false);
    const { log } = await storedState(p, sessionIdOf(run.stdout));
    expect(log.map((e) => e.reason)).toEqual(["no-incomplete-todos"]);
  });

  it("never nudges for a check that runs out of time", async () => {
    const p = await project({ verify: { command: "sleep 30", timeoutMs: 1000 } }, true);
    const gemini = await server((c) =>
      c.turn === 0
        ? answer(call("write_todos", { todos: [{ description: "Build it", status: "completed" }] }))
        : answer(say("Built.")),
    );
    const started = Date.now();
    const run = await runGemini(p, gemini, "Build it");
    expect(run.code, run.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(gemini.turns()).toHaveLength(2);
    const { log } = await storedState(p, sessionIdOf(run.stdout));
    expect(log.map((e) => e.reason)).toEqual(["verify-timed-out"]);
  });

  it("never runs the check for a subagent that finishes its own list; the parent's finish runs it", async () => {
    const check = countedFailingCheck();
    const p = await project({ verify: { command: check.command } }, true);
    const HELPER = "HELPER: survey the logs";
    let parent = 0;
    let helper = 0;
    let runsWhenHelperDone = -1;
    let helperResult = "";
    let helperListAnswer = "";
    const gemini = await server((c) => {
      // The invoke_agent child is offered no invoke_agent of its own.
      const offersInvoke = (c.body.tools ?? []).some((t) =>
        (t.functionDeclarations ?? []).some((f) => f.name === "invoke_agent"),
      );
      if (!offersInvoke) {
        if (!JSON.stringify(c.body.contents).includes(HELPER)) return answer(say("ok"));
        helper++;
        if (helper === 2) helperListAnswer = JSON.stringify(c.body.contents?.at(-1));
        // Its own list, finished at once; then it ends.
        return helper === 1
          ? answer(call("write_todos", { todos: [todo("The helper's own item", "completed")] }))
          : answer(call("complete_task", { result: { response: "Helper finished." } }));
      }
      parent++;
      switch (parent) {
        case 1:
          return answer(call("write_todos", { todos: [todo("Review the survey", "in_progress")] }));
        case 2:
          return answer(call("invoke_agent", { agent_name: "generalist", prompt: HELPER }));
        case 3:
          helperResult = JSON.stringify(c.body.contents?.at(-1));
          // Ends the turn with its own item open: had the helper's finished list reached this
          // list, the check would run here.
          return answer(say("Waiting on the survey."));
        case 4:
          // The helper has finished its list and ended, and the parent was nudged for its open
          // item: no check ran.
          runsWhenHelperDone = check.runs();
          return answer(call("write_todos", { todos: [todo("Review the survey", "completed")] }));
        default:
          return answer(say("Reviewed."));
      }
    });
    try {
      const run = await runGemini(p, gemini, "Survey and review.");
      expect(run.code, run.stderr).toBe(0);
      expect(helper).toBe(2);
      // The helper's write_todos went through, and it ended with its report.
      expect(helperListAnswer).toContain("write_todos");
      expect(helperListAnswer).toContain("The helper's own item");
      expect(helperResult).toContain("Helper finished.");
      expect(runsWhenHelperDone).toBe(0);
      const { todos, log } = await storedState(p, sessionIdOf(run.stdout));
      // The helper's write stayed off the parent's list.
      expect(todos.map((t) => [t.content, t.status])).toEqual([["Review the survey", "completed"]]);
      expectParentCheckedOnce(log, check);
    } finally {
      check.dispose();
    }
  });

  it("host limit: an AfterAgent hook past its timeout is stopped and the turn ends", async () => {
    // Measures Gemini CLI itself: a user-level hook that runs 20 s, given 2000 ms.
    const p = makeProject();
    projects.push(p);
    const marker = join(p.dir, "slow-hook-started");
    // `exec`: the signal reaches the sleeping process itself. (Gemini CLI waits for the hook's
    // output pipes to close, so a child that outlives the killed shell holds the turn until it
    // exits: with a plain `sleep 20; echo ...` the run took ~30 s and the late answer was ignored.)
    const command = `touch ${marker}; exec sleep 20`;
    writeFileSync(
      join(p.home, ".gemini", "settings.json"),
      JSON.stringify({
        hooks: {
          AfterAgent: [{ hooks: [{ name: "slow", type: "command", command, timeout: 2000 }] }],
        },
      }),
    );
    const gemini = await server(() => answer(say("Done.")));
    const started = Date.now();
    const run = await runGemini(p, gemini, "Say done");
    const took = Date.now() - started;
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(gemini.turns()).toHaveLength(1);
    expect(took).toBeLessThan(15_000);
    process.stderr.write(
      `gemini AfterAgent hook with timeout 2000 ms and a 20 s command: run took ${took} ms\n`,
    );
  });
});
