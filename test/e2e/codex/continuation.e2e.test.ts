import { afterEach, describe, expect, it } from "vitest";
import { PRESETS } from "../../../src/core/engine/presets.js";
import {
  callOutputs,
  callReply,
  fromSubagent,
  hookPrompts,
  type ResponsesRequest,
  type ScriptedResponse,
  textReply,
} from "../support/responses-server.js";
import {
  type CodexWorld,
  codexWorld,
  killCodex,
  listOf,
  plan,
  STOPS_EARLY_TWICE,
} from "./codex-world.js";

/**
 * The real Codex CLI (pinned, see codex-world.ts) with our hooks installed by
 * our own `install codex --project`, against a scripted Responses API server.
 * No run uses a bypass flag: the hooks run because their trust entries match.
 */

const worlds: CodexWorld[] = [];
afterEach(async () => {
  killCodex();
  const done = worlds.splice(0);
  await Promise.all(done.map((w) => w.close()));
  // Nothing but the scripted model server was contacted.
  for (const w of done) expect(w.outbound).toEqual([]);
});

async function world(
  script: (request: ResponsesRequest, index: number) => ScriptedResponse,
  preset?: string,
): Promise<CodexWorld> {
  const w = await codexWorld(script, preset ? { preset } : {});
  worlds.push(w);
  return w;
}

/** Nudges the session's model saw, counted on its last request (each stays in the history). */
function nudgesSeen(w: CodexWorld): string[] {
  const last = w.server.requests.filter((r) => !fromSubagent(r)).at(-1);
  return last === undefined ? [] : hookPrompts(last);
}

describe("Codex CLI end to end", () => {
  it("nudges an early stop with open items until the plan is done, then stays silent", async () => {
    const replies = STOPS_EARLY_TWICE;
    const w = await world((_r, i) => replies[i] ?? textReply("extra"));
    const run = await w.exec("Write the two steps.");
    expect(run.code).toBe(0);
    expect(w.server.requests).toHaveLength(6);
    const nudges = nudgesSeen(w);
    expect(nudges).toHaveLength(2);
    expect(nudges[0]).toContain("step 2");
    expect(nudges[0]).toContain("update_plan");
    const id = run.sessionId as string;
    expect(listOf(await w.snapshot(id))).toEqual([
      ["step 1", "completed"],
      ["step 2", "completed"],
    ]);
    const log = await w.log(id);
    expect(log.filter((e) => e.action === "inject")).toHaveLength(2);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "no-incomplete-todos" });
    expect(w.server.stray).toEqual([]);
  });

  it("stops an agent that never makes progress within the default preset's limits", async () => {
    // Every other reply re-sends the same open plan, the rest stop.
    const w = await world((_r, i) =>
      i % 2 === 0 ? plan("pending", "pending") : textReply("Not now."),
    );
    const run = await w.exec("Do both steps.");
    expect(run.code).toBe(0);
    const limits = PRESETS.default.limits;
    const nudges = nudgesSeen(w).length;
    expect(nudges).toBeGreaterThanOrEqual(1);
    expect(nudges).toBeLessThanOrEqual(Math.min(limits.maxAutoTurns, limits.stagnationLimit + 1));
    expect((await w.log(run.sessionId as string)).at(-1)).toMatchObject({
      action: "skip",
      reason: "stagnation",
    });
  });

  it("stops an always-stopping model at the preset's turn budget, the only cap there is", async () => {
    // The pi preset: 3 nudges, no stagnation check, so only the turn budget ends it.
    const w = await world((_r, i) => (i === 0 ? plan("pending") : textReply("Stopping.")), "pi");
    const run = await w.exec("Do the step.");
    expect(run.code).toBe(0);
    expect(nudgesSeen(w)).toHaveLength(PRESETS.pi.limits.maxAutoTurns);
    expect(w.server.requests).toHaveLength(PRESETS.pi.limits.maxAutoTurns + 2);
    expect((await w.log(run.sessionId as string)).at(-1)).toMatchObject({
      action: "skip",
      reason: "max-auto-turns",
    });
  });

  it("all done means silence: no nudge, one decision", async () => {
    const replies = [plan("completed", "completed"), textReply("Finished both.")];
    const w = await world((_r, i) => replies[i] ?? textReply("extra"));
    const run = await w.exec("Do both steps.");
    expect(run.code).toBe(0);
    expect(w.server.requests).toHaveLength(2);
    expect(nudgesSeen(w)).toEqual([]);
    const log = await w.log(run.sessionId as string);
    expect(log.map((e) => e.action)).toEqual(["skip"]);
  });

  it("respects an interrupt until the user's next prompt", async () => {
    const replies: ScriptedResponse[] = [
      plan("in_progress", "pending"),
      { stall: true },
      // After "Go on.": the agent works its plan again, then stops early.
      plan("completed", "in_progress"),
    ];
    const w = await world((_r, i) => replies[i] ?? textReply("Stopping."));
    const running = w.start("Do both steps.");
    await w.server.waitForRequests(2, 60_000);
    running.child.kill("SIGINT");
    const run = await running.done;
    const id = run.sessionId as string;
    const after = await w.snapshot(id);
    expect(after.state.userAbortBlocked).toBe(true);
    expect(after.state.lastOutcome?.stopReason).toBe("aborted");
    expect(w.server.requests).toHaveLength(2);
    // The next prompt is the user's: the abort is lifted, and once the agent works its plan an
    // early stop is nudged again.
    const resumed = await w.exec("Go on.", ["resume", id]);
    expect(resumed.code).toBe(0);
    expect((await w.snapshot(id)).state.userAbortBlocked).toBe(false);
    expect(nudgesSeen(w).length).toBeGreaterThan(0);
  });

  it("keeps a subagent's plan out of the parent's list and never blocks the subagent", async () => {
    let parent = 0;
    let child = 0;
    const w = await world((request) => {
      if (fromSubagent(request)) {
        child++;
        return child === 1
          ? callReply("update_plan", { plan: [{ step: "child step", status: "pending" }] })
          : textReply("Child stops with its step open.");
      }
      parent++;
      if (parent === 1) {
        return callReply("update_plan", { plan: [{ step: "parent step", status: "in_progress" }] });
      }
      if (parent === 2)
        return callReply("spawn_agent", { message: "SUBTASK: look around" }, "multi_agent_v1");
      if (parent === 3) {
        const spawned = callOutputs(request, "spawn_agent")[0] ?? "{}";
        const agent = (JSON.parse(spawned) as { agent_id?: string }).agent_id ?? "";
        return callReply("wait_agent", { targets: [agent], timeout_ms: 60_000 }, "multi_agent_v1");
      }
      if (parent === 4) {
        return callReply("update_plan", { plan: [{ step: "parent step", status: "completed" }] });
      }
      return textReply("Parent done.");
    });
    const run = await w.exec("Use a helper.");
    expect(run.code).toBe(0);
    const childRequests = w.server.requests.filter(fromSubagent);
    expect(childRequests.length).toBeGreaterThanOrEqual(2);
    expect(childRequests.flatMap(hookPrompts)).toEqual([]);
    const id = run.sessionId as string;
    expect(listOf(await w.snapshot(id))).toEqual([["parent step", "completed"]]);
    expect(nudgesSeen(w)).toEqual([]);
  });
});
