import { afterEach, describe, expect, it } from "vitest";
import {
  hookPrompts,
  type ScriptedResponse,
  textReply,
  userTexts,
} from "../support/responses-server.js";
import type { AppServer } from "./app-server.js";
import { type CodexWorld, codexWorld, killCodex, plan } from "./codex-world.js";

/**
 * The real Codex CLI driven through `codex app-server`, as its UI drives it:
 * what `codex exec` cannot do (steer a running turn, set a goal). Hooks are
 * installed by our own `install codex --project`; no bypass flag.
 */

const open: { world: CodexWorld; app: AppServer }[] = [];
afterEach(async () => {
  const done = open.splice(0);
  for (const { app } of done) await app.close();
  killCodex();
  await Promise.all(done.map(({ world }) => world.close()));
  for (const { world } of done) expect(world.outbound).toEqual([]);
});

async function session(script: (index: number) => ScriptedResponse) {
  const world = await codexWorld((_r, i) => script(i));
  const app = await world.appServer();
  open.push({ world, app });
  const started = await app.request<{ thread: { id: string } }>("thread/start", {
    cwd: world.project,
    approvalPolicy: "never",
  });
  return { world, app, threadId: started.thread.id };
}

const text = (value: string) => [{ type: "text", text: value }];

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > end)
      throw new Error(`condition not met in ${ms} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("Codex CLI through app-server", () => {
  it("a prompt steered into a nudged turn redirects the agent: no nudge back onto the list", async () => {
    const replies: ScriptedResponse[] = [
      plan("in_progress", "pending"),
      textReply("I'll stop here."),
      // The turn our nudge continued: slow enough for the user to steer into it.
      { ...textReply("Working on step 1."), delayMs: 4000 },
      textReply("Inspected the config, as you asked."),
    ];
    const { world, app, threadId } = await session((i) => replies[i] ?? textReply("extra"));
    const turn = await app.request<{ turn: { id: string } }>("turn/start", {
      threadId,
      input: text("Do the two steps."),
    });
    await world.server.waitForRequests(3, 60_000);
    // The nudge is in flight: the user redirects the running turn.
    expect(hookPrompts(world.server.requests[2] ?? world.server.requests[0]!)).toHaveLength(1);
    await app.request("turn/steer", {
      threadId,
      expectedTurnId: turn.turn.id,
      input: text("Stop. Inspect the config first."),
    });
    await app.waitFor((n) => n.method === "turn/completed", 90_000);
    const log = await until(
      () => world.log(threadId),
      (entries) => entries.length >= 2,
    );
    const last = world.server.requests.at(-1)!;
    // The steer kept the running turn's id, and reached the model after our one nudge.
    expect(last.turnMetadata.turn_id).toBe(turn.turn.id);
    expect(userTexts(last)).toContain("Stop. Inspect the config first.");
    expect(hookPrompts(last)).toHaveLength(1);
    expect(log.map((e) => [e.action, e.reason])).toEqual([
      ["inject", null],
      ["skip", "list-unchanged-since-user"],
    ]);
    expect(world.server.requests).toHaveLength(4);
  }, 180_000);

  it("steps aside while a Codex goal is active, and nudges again once it is paused", async () => {
    let phase = 1;
    const second: ScriptedResponse[] = [
      plan("completed", "in_progress"),
      textReply("Stopping."),
      plan("completed", "completed"),
      textReply("All done."),
    ];
    let n = 0;
    const { world, app, threadId } = await session((i) => {
      if (i === 0) return plan("in_progress", "pending");
      if (phase === 1) return { ...textReply("Stopping here."), delayMs: 300 };
      return second[n++] ?? textReply("extra");
    });
    await app.request("thread/goal/set", {
      threadId,
      objective: "Finish both steps.",
      status: "active",
    });
    await app.request("turn/start", { threadId, input: text("Do the two steps.") });
    // Codex's goal loop turns, each stopping with the plan open: ours are skips, never a block.
    const log = await until(
      () => world.log(threadId),
      (entries) => entries.length >= 3,
      150_000,
    ).catch((error: Error) => {
      const turns = world.server.requests.map((r) => r.turnMetadata.turn_id);
      throw new Error(`${error.message}; ${turns.length} model requests, turns ${turns.join(" ")}`);
    });
    expect(log.every((e) => e.action === "skip" && e.reason === "host-goal-active")).toBe(true);
    await app.request("thread/goal/set", { threadId, status: "paused" });
    // The goal loop winds down: no request for 3 s.
    let seen = -1;
    await until(
      async () => {
        const count = world.server.requests.length;
        const quiet = count === seen;
        seen = count;
        await new Promise((resolve) => setTimeout(resolve, 3000));
        return quiet && world.server.requests.length === count;
      },
      (quiet) => quiet,
      90_000,
    );
    for (const request of world.server.requests) expect(hookPrompts(request)).toEqual([]);
    const goalTurns = new Set(world.server.requests.map((r) => r.turnMetadata.turn_id)).size;
    expect(goalTurns).toBeGreaterThanOrEqual(3);
    phase = 2;
    const before = world.server.requests.length;
    await app.request("turn/start", { threadId, input: text("Carry on with step 2.") });
    await until(
      async () => world.server.requests.length,
      (count) => count >= before + 4,
      90_000,
    );
    const after = await until(
      () => world.log(threadId),
      (entries) => entries.at(-1)?.reason === "no-incomplete-todos",
    );
    const tail = after.slice(log.length).filter((e) => e.reason !== "host-goal-active");
    expect(tail.map((e) => [e.action, e.reason])).toEqual([
      ["inject", null],
      ["skip", "no-incomplete-todos"],
    ]);
    expect(hookPrompts(world.server.requests.at(-1)!)).toHaveLength(1);
  }, 400_000);
});
