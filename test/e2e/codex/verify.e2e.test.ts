import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codexHookHash, codexHookKey } from "../../../src/hosts/codex/trust.js";
import { countedFailingCheck, expectParentCheckedOnce } from "../support/counted-check.js";
import {
  callOutputs,
  callReply,
  fromSubagent,
  hookPrompts,
  type ResponsesRequest,
  type ScriptedResponse,
  textReply,
} from "../support/responses-server.js";
import { type CodexWorld, codexWorld, killCodex, listOf } from "./codex-world.js";

/**
 * The real Codex CLI with a project `verify`. The scripted model stands in for
 * the agent's edit: when the verification nudge reaches it, it writes the
 * missing file into the project itself and answers that it did, so what is
 * tested is the hook's part: nudge with the failure, then a pass as verified.
 */

const worlds: CodexWorld[] = [];
afterEach(async () => {
  killCodex();
  await Promise.all(worlds.splice(0).map((w) => w.close()));
});

const CHECK = "test -f done.txt || { echo 'done.txt is missing'; exit 4; }";

describe("Codex CLI with a project verify", () => {
  it("nudges a false finish with the failing check, then lets the stop pass as verified", async () => {
    let dir = "";
    const script = (request: ResponsesRequest, index: number): ScriptedResponse => {
      if (index === 0) {
        return callReply("update_plan", {
          plan: [{ step: "Create done.txt", status: "completed" }],
        });
      }
      if (hookPrompts(request).some((p) => p.includes("done.txt is missing"))) {
        writeFileSync(join(dir, "done.txt"), "ok\n");
        return textReply("Created done.txt.");
      }
      return textReply("Everything is done.");
    };
    const w = await codexWorld(script, {
      config: { verify: { command: CHECK, timeoutMs: 20_000 } },
      trustConfig: true,
    });
    worlds.push(w);
    dir = w.project;
    const run = await w.exec("Create done.txt");
    expect(run.code).toBe(0);
    expect(existsSync(join(w.project, "done.txt"))).toBe(true);
    const id = run.sessionId as string;
    const log = await w.log(id);
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "verified"]);
    expect(w.server.requests).toHaveLength(3);
  });

  it("runs nothing from an untrusted config", async () => {
    const script = (_r: ResponsesRequest, index: number): ScriptedResponse =>
      index === 0
        ? callReply("update_plan", { plan: [{ step: "Tidy", status: "completed" }] })
        : textReply("All tidy.");
    const w = await codexWorld(script, {
      config: { verify: { command: "touch ran.txt; exit 1" } },
    });
    worlds.push(w);
    const run = await w.exec("Tidy up");
    expect(run.code).toBe(0);
    expect(existsSync(join(w.project, "ran.txt"))).toBe(false);
    const log = await w.log(run.sessionId as string);
    expect(log.map((e) => e.reason)).toEqual(["no-incomplete-todos"]);
  });

  it("never nudges for a check that runs out of time", async () => {
    const script = (_r: ResponsesRequest, index: number): ScriptedResponse =>
      index === 0
        ? callReply("update_plan", { plan: [{ step: "Build it", status: "completed" }] })
        : textReply("Built.");
    const w = await codexWorld(script, {
      config: { verify: { command: "sleep 30", timeoutMs: 1000 } },
      trustConfig: true,
    });
    worlds.push(w);
    const started = Date.now();
    const run = await w.exec("Build it");
    expect(run.code, run.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(w.server.requests).toHaveLength(2);
    const log = await w.log(run.sessionId as string);
    expect(log.map((e) => e.reason)).toEqual(["verify-timed-out"]);
  });

  // multi_agent (v1) is on by default in 0.169.0; multi_agent_v2 is stable but off by default.
  it.each([
    { tools: "multi_agent_v1", features: {} as Record<string, boolean> },
    { tools: "collaboration", features: { multi_agent_v2: true } },
  ])(
    "never runs the check for a subagent ($tools) that finishes its own plan; the parent's finish runs it",
    async ({ tools, features }) => {
      const v2 = tools === "collaboration";
      const check = countedFailingCheck();
      let parent = 0;
      let helper = 0;
      let runsWhenHelperDone = -1;
      let helperOutcome = "";
      const script = (request: ResponsesRequest): ScriptedResponse => {
        if (fromSubagent(request)) {
          helper++;
          // The helper's own plan, finished at once; then it stops.
          return helper === 1
            ? callReply("update_plan", { plan: [{ step: "helper step", status: "completed" }] })
            : textReply("Helper finished.");
        }
        parent++;
        switch (parent) {
          case 1:
            return callReply("update_plan", {
              plan: [{ step: "review the survey", status: "in_progress" }],
            });
          case 2:
            // v2 names each agent's task; v1 answers with an agent id.
            return callReply(
              "spawn_agent",
              v2
                ? { message: "HELPER: survey the logs", task_name: "helper" }
                : { message: "HELPER: survey the logs" },
              tools,
            );
          case 3: {
            // v1 waits on the agent ids spawn_agent returned; v2 on every running agent.
            const spawned = callOutputs(request, "spawn_agent")[0] ?? "{}";
            const agent = (JSON.parse(spawned) as { agent_id?: string }).agent_id ?? "";
            return callReply(
              "wait_agent",
              v2 ? { timeout_ms: 60_000 } : { targets: [agent], timeout_ms: 60_000 },
              tools,
            );
          }
          case 4:
            helperOutcome = callOutputs(request, "wait_agent")[0] ?? "";
            // Stops with its own item open: had the helper's finished plan reached this list,
            // the check would run here.
            return textReply("Waiting on the survey.");
          case 5:
            // The helper has finished its plan and stopped, and the parent was nudged for its
            // open item: no check ran.
            runsWhenHelperDone = check.runs();
            return callReply("update_plan", {
              plan: [{ step: "review the survey", status: "completed" }],
            });
          default:
            return textReply("Reviewed.");
        }
      };
      const w = await codexWorld(script, {
        config: { verify: { command: check.command, timeoutMs: 20_000 } },
        trustConfig: true,
        features,
      });
      worlds.push(w);
      try {
        const run = await w.exec("Survey and review.");
        expect(run.code, run.stderr).toBe(0);
        expect(helper).toBe(2);
        // v1's wait returns the helper's answer; v2's only that it did not time out.
        expect(helperOutcome).toMatch(v2 ? /"timed_out":false/ : /Helper finished\./);
        expect(runsWhenHelperDone).toBe(0);
        // The helper's requests carried no nudge of ours.
        expect(w.server.requests.filter(fromSubagent).flatMap(hookPrompts)).toEqual([]);
        const id = run.sessionId as string;
        // The helper's plan stayed out of the parent's list.
        expect(listOf(await w.snapshot(id))).toEqual([["review the survey", "completed"]]);
        expectParentCheckedOnce(await w.log(id), check);
      } finally {
        check.dispose();
      }
    },
  );

  it("host limit: a Stop hook past its timeout is killed and the stop goes ahead", async () => {
    // Measures Codex itself: a trusted user-level Stop hook that would block after 20 s, given 2 s.
    const w = await codexWorld(() => textReply("Done."));
    worlds.push(w);
    // The marker proves Codex ran the hook (an untrusted hook would be skipped).
    const marker = join(w.project, "slow-hook-started");
    const command = `touch ${marker}; sleep 20; echo '{"decision":"block","reason":"late"}'`;
    const hook = { event: "Stop" as const, command, timeout: 2 };
    appendFileSync(
      w.userConfig,
      [
        "",
        "[[hooks.Stop]]",
        "[[hooks.Stop.hooks]]",
        'type = "command"',
        `command = ${JSON.stringify(command)}`,
        "timeout = 2",
        "",
        `[hooks.state.${JSON.stringify(codexHookKey(w.userConfig, "Stop", 0))}]`,
        `trusted_hash = ${JSON.stringify(codexHookHash(hook))}`,
        "",
      ].join("\n"),
    );
    const started = Date.now();
    const run = await w.exec("Say done");
    const took = Date.now() - started;
    expect(run.code, run.stderr).toBe(0);
    expect(w.server.requests).toHaveLength(1);
    expect(took).toBeLessThan(15_000);
    process.stderr.write(
      `codex stop hook with timeout 2 s and a 20 s command: run took ${took} ms\n`,
    );
  });
});
