import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ContinuationRuntime } from "../../../src/runtime/runtime.js";
import { textReply, toolCallReply } from "../support/openai-server.js";
import {
  createPiWorld,
  installPi,
  lastUserMessage,
  messageText,
  PI_VERSION,
  type PiWorld,
  piVersion,
} from "./pi-world.js";

const init = (...items: string[]) =>
  toolCallReply("todo_write", { ops: [{ op: "init", list: [{ phase: "Work", items }] }] });
const done = (task: string) => toolCallReply("todo_write", { ops: [{ op: "done", task }] });

let bin = "";
let world: PiWorld | null = null;

beforeAll(async () => {
  bin = installPi();
  expect(await piVersion(bin)).toContain(PI_VERSION);
});

afterEach(async () => {
  await world?.close();
  world = null;
});

function lastUserTexts(w: PiWorld): string[] {
  return w.server.chatRequests().map((r) => messageText(lastUserMessage(r)));
}

describe(`pi ${PI_VERSION} with the extension (print mode)`, () => {
  it("continues an early stop until the list is done", async () => {
    world = await createPiWorld(bin);
    world.server.script([
      init("Parse the input", "Render the output"),
      textReply("I have a plan."), // stops early, two tasks open
      done("Parse the input"),
      textReply("Parsed."), // stops early again, one task open
      done("Render the output"),
      // 1000 prompt tokens, 800 of them served from cache.
      textReply("Everything is done.", {
        promptTokens: 1000,
        completionTokens: 10,
        cachedTokens: 800,
      }),
    ]);
    const run = await world.print("Build the converter.");
    expect(run.stderr).not.toContain("todo-continuation:");
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe("Everything is done.");

    const requests = world.server.chatRequests();
    expect(requests).toHaveLength(6);
    expect(requests[0]!.body.tools?.map((t) => t.function.name)).toContain("todo_write");
    const users = lastUserTexts(world);
    expect(users[0]).toBe("Build the converter.");
    // Each early stop was answered by a nudge carrying the open tasks inline.
    expect(users[2]).toContain("Parse the input");
    expect(users[2]).toContain("Render the output");
    expect(users[4]).toContain("Render the output");
    expect(users[4]).not.toContain("Parse the input");
    // The nudge is the last message of those requests, after the assistant's stop.
    expect(requests[2]!.body.messages.at(-1)?.role).toBe("user");

    const store = world.store();
    const scope = await world.onlyScope();
    expect(scope.key).toMatch(/^session\/spi\./);
    const log = await store.readLog(scope);
    expect(log.map((e) => e.action)).toEqual(["inject", "inject", "skip"]);
    expect(log.at(-1)?.reason).toBe("no-incomplete-todos");
    const snapshot = await store.read(scope);
    expect(snapshot.todos.todos.map((t) => t.status)).toEqual(["completed", "completed"]);
    // pi's usage, with cached input kept out of `input`.
    expect(snapshot.state.lastOutcome?.usage).toMatchObject({
      input: 200,
      cacheRead: 800,
      output: 10,
    });
  });

  it("ends at the budget when the model makes no progress", async () => {
    world = await createPiWorld(bin);
    // After planning, the model only ever talks: the list never moves.
    world.server.script((_request, index) =>
      index === 0
        ? init("Parse the input", "Render the output")
        : textReply(`Still thinking (${index}).`),
    );
    // The pi preset: three nudges, no stagnation check, so the turn budget is what ends it.
    const run = await world.print("Build the converter.", { TODO_CONTINUATION_PRESET: "pi" });
    expect(run.code).toBe(0);
    const requests = world.server.chatRequests();
    expect(requests).toHaveLength(2 + 3);
    // The pi preset's system-block nudge names the next open task.
    const nudges = lastUserTexts(world).slice(2);
    expect(nudges).toHaveLength(3);
    for (const nudge of nudges) {
      expect(nudge).toContain("automatic todo continuation");
      expect(nudge).toContain("Parse the input");
    }
    const log = await world.store().readLog(await world.onlyScope());
    expect(log.filter((e) => e.action === "inject")).toHaveLength(3);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "max-auto-turns" });
  });

  it("exits 0 with the answer when another writer withdraws the continuation during the final turn", async () => {
    const w = await createPiWorld(bin);
    world = w;
    w.server.script([
      init("Parse the input", "Render the output"),
      {
        ...textReply("Here is my answer."),
        // While the model streams its last answer, the user runs `stop` on this session.
        before: async () => {
          await new ContinuationRuntime({ store: w.store() }).stop(await w.onlyScope());
        },
      },
    ]);
    const run = await w.print("Build the converter.");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("Here is my answer.");
    // The queued continuation never reached the model.
    expect(w.server.chatRequests()).toHaveLength(2);
    const log = await w.store().readLog(await w.onlyScope());
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "continuation-stopped" });
  });

  it("lets one wasted nudge go under the default preset's strict progress rule", async () => {
    world = await createPiWorld(bin);
    world.server.script((_request, index) =>
      index === 0 ? init("Parse the input") : textReply(`Still thinking (${index}).`),
    );
    const run = await world.print("Build the converter.");
    expect(run.code).toBe(0);
    expect(world.server.chatRequests()).toHaveLength(3);
    const log = await world.store().readLog(await world.onlyScope());
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "stagnation" });
  });
});

describe(`pi ${PI_VERSION} with the extension (RPC mode)`, () => {
  it("respects an abort, and continues again after the user's next prompt", async () => {
    world = await createPiWorld(bin);
    world.server.script([
      init("Parse the input", "Render the output"),
      textReply("I have a plan."),
      { text: "Working on it", stall: true }, // the nudged turn hangs: the user presses Esc
      done("Parse the input"),
      textReply("Parsed."),
      done("Render the output"),
      textReply("Everything is done."),
    ]);
    const pi = world.rpc();
    pi.send({ type: "prompt", message: "Build the converter." });
    await world.server.waitForChatRequests(3);
    pi.send({ type: "abort" });
    await pi.next((e) => e.type === "agent_end");
    // Once the run has ended nothing can reach the model without a new prompt.
    expect(world.server.chatRequests()).toHaveLength(3);
    const store = world.store();
    const scope = await world.onlyScope();
    await expect
      .poll(async () => (await store.readLog(scope)).at(-1)?.reason)
      .toBe("user-abort-blocked");
    expect((await store.read(scope)).state.userAbortBlocked).toBe(true);

    pi.send({ type: "prompt", message: "Please go on." });
    await pi.next((e) => e.type === "agent_end");
    await pi.close();
    const users = lastUserTexts(world);
    expect(world.server.chatRequests()).toHaveLength(7);
    expect(users[3]).toBe("Please go on.");
    expect(users[5]).toContain("Render the output");
    const snapshot = await store.read(scope);
    expect(snapshot.state.userAbortBlocked).toBe(false);
    expect(snapshot.todos.todos.map((t) => t.status)).toEqual(["completed", "completed"]);
  });
});
