import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { fileChildRuns } from "./children.js";
import { geminiScope, handleGeminiHookEvent } from "./handler.js";
import { type GeminiHookEvent, parseGeminiHookObject } from "./payload.js";
import { NUDGE_MARKER } from "./turn.js";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function world(preset?: "parley") {
  const root = mkdtempSync(join(tmpdir(), "gem-handler-"));
  roots.push(root);
  const store = new MemoryStore();
  const children = fileChildRuns(root);
  let clock = 1_000_000;
  const send = (fields: Record<string, unknown>) =>
    handleGeminiHookEvent(
      parseGeminiHookObject({ session_id: "s1", cwd: "/p", ...fields }) as GeminiHookEvent,
      {
        store,
        children,
        now: () => (clock += 1000),
        ...(preset !== undefined ? { preset } : {}),
      },
    );
  const write = (todos: { description: string; status: string }[]) =>
    send({ hook_event_name: "AfterTool", tool_name: "write_todos", tool_input: { todos } });
  const stop = (prompt_response: string, stop_hook_active = false) =>
    send({ hook_event_name: "AfterAgent", prompt: "go", prompt_response, stop_hook_active });
  const prompt = (text: string) => send({ hook_event_name: "BeforeAgent", prompt: text });
  return { store, send, write, stop, prompt };
}

const blocks = (stdout: string) => JSON.parse(stdout).decision === "block";

/**
 * A session with a session file written the way Gemini CLI 0.61 records it:
 * each request (`user`) before its model call, each reply (`gemini`) after
 * its stream finished. Records are stamped just after the latest hook ran.
 */
function sessionWorld(preset?: "parley", options: { recording?: boolean } = {}) {
  const root = mkdtempSync(join(tmpdir(), "gem-session-"));
  roots.push(root);
  const transcript = join(root, "session.jsonl");
  const store = new MemoryStore();
  const children = fileChildRuns(join(root, "children"));
  let clock = 1_000_000;
  let seq = 0;
  const send = (fields: Record<string, unknown>) =>
    handleGeminiHookEvent(
      parseGeminiHookObject({
        session_id: "s1",
        cwd: "/p",
        ...(options.recording === false ? {} : { transcript_path: transcript }),
        ...fields,
      }) as GeminiHookEvent,
      { store, children, now: () => (clock += 1000), ...(preset !== undefined ? { preset } : {}) },
    );
  const append = (type: "user" | "gemini", id: string) => {
    if (options.recording === false) return;
    seq += 1;
    const line = JSON.stringify({
      id,
      timestamp: new Date(clock + seq).toISOString(),
      type,
      content: type === "user" ? [{ text: id }] : id,
    });
    writeFileSync(transcript, `${line}\n`, { flag: "a" });
  };
  const request = (id: string) => append("user", id);
  const reply = (id: string) => append("gemini", id);
  const prompt = (text: string) => send({ hook_event_name: "BeforeAgent", prompt: text });
  let userPromptText = "";
  return {
    store,
    request,
    reply,
    prompt,
    async userPrompt(text: string) {
      userPromptText = text;
      await prompt(text);
      request(`prompt-${seq}`);
    },
    /** A model reply calling write_todos, the tool's AfterTool, and its response recorded as the next request. */
    async toolStep(todos: { description: string; status: string }[]) {
      reply(`g-call-${seq}`);
      await send({ hook_event_name: "AfterTool", tool_name: "write_todos", tool_input: { todos } });
      request(`fr-${seq}`);
    },
    stop: (prompt_response: string, stop_hook_active = false) =>
      send({
        hook_event_name: "AfterAgent",
        prompt: userPromptText,
        prompt_response,
        stop_hook_active,
      }),
  };
}

describe("handleGeminiHookEvent", () => {
  it("blocks an early stop with open items, with our marker first, and allows once all are done", async () => {
    const w = world();
    await w.prompt("Build it.");
    await w.write([{ description: "Parse", status: "in_progress" }]);
    const first = await w.stop("I stop here.");
    expect(blocks(first.stdout)).toBe(true);
    const reason = JSON.parse(first.stdout).reason as string;
    expect(reason.startsWith(NUDGE_MARKER)).toBe(true);
    expect(reason).toContain("Parse");
    // The nudge comes back through BeforeAgent: the episode goes on.
    await w.prompt(reason);
    await w.write([{ description: "Parse", status: "completed" }]);
    const done = await w.stop("I stop here.\nDone.", true);
    expect(JSON.parse(done.stdout)).toEqual({});
    const log = await w.store.readLog(geminiScope("s1"));
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "no-incomplete-todos"]);
  });

  it("charges the turn's tokens from the session file, only the replies since the last hook", async () => {
    const w = world();
    const root = mkdtempSync(join(tmpdir(), "gem-handler-spend-"));
    roots.push(root);
    const transcript = join(root, "session.jsonl");
    const reply = (id: string, ms: number, input: number, output: number) =>
      JSON.stringify({
        id,
        timestamp: new Date(ms).toISOString(),
        type: "gemini",
        tokens: { input, output, cached: 0, thoughts: 0, tool: 0 },
      });
    // A reply from before the user's prompt (the world's clock starts at 1,000,000 ms).
    writeFileSync(transcript, `${reply("old", 500_000, 50_000, 5_000)}\n`);
    await w.prompt("Build it.");
    await w.write([{ description: "Parse", status: "in_progress" }]);
    writeFileSync(
      transcript,
      `${reply("old", 500_000, 50_000, 5_000)}\n${reply("g1", 1_001_500, 1_200, 80)}\n`,
      {
        flag: "w",
      },
    );
    const stop = (text: string) =>
      w.send({
        hook_event_name: "AfterAgent",
        prompt: "go",
        prompt_response: text,
        transcript_path: transcript,
      });
    expect(blocks((await stop("I stop here.")).stdout)).toBe(true);
    const after = (await w.store.read(geminiScope("s1"))).state;
    expect(after.lastOutcome?.usage).toMatchObject({ input: 1_200, output: 80 });
    // The next turn is charged its own reply only.
    writeFileSync(transcript, `${reply("g2", 1_010_000, 300, 20)}\n`, { flag: "a" });
    await stop("I stop here again.");
    const next = (await w.store.read(geminiScope("s1"))).state;
    expect(next.lastOutcome?.usage).toMatchObject({ input: 300, output: 20 });
  });

  it("says nothing for a session that never wrote a list", async () => {
    const w = world();
    const out = await w.stop("Hello.");
    expect(out).toMatchObject({ stdout: "{}", stderr: [] });
    expect(await w.store.readLog(geminiScope("s1"))).toEqual([]);
  });

  it("does not answer a hollow AfterAgent (no model call since the block) a second time", async () => {
    const w = sessionWorld("parley");
    await w.userPrompt("Refactor.");
    await w.toolStep([{ description: "Refactor", status: "pending" }]);
    w.reply("g-pause");
    expect(blocks((await w.stop("Pausing.")).stdout)).toBe(true);
    // The loop detector has tripped: the CLI fires AfterAgent again with no model call.
    const hollow = await w.stop("Pausing.", true);
    expect(JSON.parse(hollow.stdout)).toEqual({});
    expect(hollow.stderr[0]).toContain("turn-not-safe");
    expect(hollow.stderr[0]).not.toContain("cancelled");
    // A model call that finishes after that is a new turn.
    w.request("n2");
    w.reply("g-again");
    expect(blocks((await w.stop("Pausing.\nLooked again.", true)).stdout)).toBe(true);
  });

  describe("Esc after a nudge, as Gemini CLI 0.61's interactive UI reports it", () => {
    // Measured from the 0.61 bundle (GeminiClient.sendMessageStream, Turn.run,
    // ChatRecordingService, useGeminiStream): a request is recorded before its
    // call and the reply only when its stream finishes; Esc makes Turn.run
    // yield UserCancelled and return, and AfterAgent still fires with the
    // prompt's earlier text. The UI then sends "[System: You successfully
    // executed a tool but returned an empty response...]" itself, a real model
    // call whose AfterAgent carries only the new text.
    async function progressThenNudge(w: ReturnType<typeof sessionWorld>) {
      await w.userPrompt("Build it.");
      await w.toolStep([
        { description: "Parse", status: "in_progress" },
        { description: "Emit", status: "pending" },
      ]);
      w.reply("g-first");
      const first = await w.stop("I stop here.");
      expect(blocks(first.stdout)).toBe(true);
      // The nudge comes back through BeforeAgent and is recorded as the next request.
      await w.prompt(JSON.parse(first.stdout).reason);
      w.request("nudge-1");
      // The agent makes progress: a write_todos call and its response.
      await w.toolStep([
        { description: "Parse", status: "completed" },
        { description: "Emit", status: "in_progress" },
      ]);
    }

    it("Esc while the model answers a tool's response: repeated text, a changed list, stop_hook_active false", async () => {
      const w = sessionWorld();
      await progressThenNudge(w);
      // Esc: the tool response was recorded, its reply never is.
      const cancel = await w.stop("I stop here.", false);
      expect(JSON.parse(cancel.stdout)).toEqual({});
      expect(cancel.stderr[0]).toContain("after the turn was cancelled");
      // The CLI's own follow-up: a real model call with new text, still not a nudge.
      await w.prompt(
        "[System: You successfully executed a tool but returned an empty response. Please analyze the tool output and explain your progress or final answer.]",
      );
      w.request("system-follow-up");
      w.reply("g-follow-up");
      const followUp = await w.stop("Parse is done; Emit is next.", false);
      expect(JSON.parse(followUp.stdout)).toEqual({});
      expect(followUp.stderr[0]).toContain("user-abort-blocked");
      const log = await w.store.readLog(geminiScope("s1"));
      expect(log.filter((e) => e.action === "inject")).toHaveLength(1);
      // The user writes again: the block lifts, and work on the list earns a nudge.
      await w.userPrompt("Go on.");
      await w.toolStep([
        { description: "Parse", status: "completed" },
        { description: "Emit", status: "in_progress" },
        { description: "Test", status: "pending" },
      ]);
      w.reply("g-go-on");
      expect(blocks((await w.stop("Emitting.")).stdout)).toBe(true);
    });

    it("Esc during our nudge's own call: stop_hook_active true, partial text", async () => {
      const w = sessionWorld();
      await w.userPrompt("Build it.");
      await w.toolStep([{ description: "Parse", status: "in_progress" }]);
      w.reply("g-first");
      const first = await w.stop("I stop here.");
      expect(blocks(first.stdout)).toBe(true);
      await w.prompt(JSON.parse(first.stdout).reason);
      w.request("nudge-1");
      const cancel = await w.stop("I stop here.\nPar", true);
      expect(JSON.parse(cancel.stdout)).toEqual({});
      expect(cancel.stderr[0]).toContain("cancelled");
    });

    it("without a session file, the repeated text alone marks the cancel", async () => {
      const w = sessionWorld(undefined, { recording: false });
      await progressThenNudge(w);
      const cancel = await w.stop("I stop here.", false);
      expect(JSON.parse(cancel.stdout)).toEqual({});
      expect(cancel.stderr[0]).toContain("cancelled");
      const followUp = await w.stop("Parse is done; Emit is next.", false);
      expect(JSON.parse(followUp.stdout)).toEqual({});
      expect(followUp.stderr[0]).toContain("user-abort-blocked");
    });

    it("a second Esc in a long session is recognised the same way", async () => {
      const w = sessionWorld("parley");
      await progressThenNudge(w);
      expect(JSON.parse((await w.stop("I stop here.", false)).stdout)).toEqual({});
      for (let round = 0; round < 3; round++) {
        await w.userPrompt(`Go on, round ${round}.`);
        await w.toolStep([
          { description: "Parse", status: "completed" },
          { description: "Emit", status: "in_progress" },
          { description: `Round ${round}`, status: "pending" },
        ]);
        w.reply(`g-round-${round}`);
        const nudged = await w.stop(`Round ${round} begun.`);
        expect(blocks(nudged.stdout)).toBe(true);
        await w.prompt(JSON.parse(nudged.stdout).reason);
        w.request(`nudge-round-${round}`);
        await w.toolStep([
          { description: "Parse", status: "completed" },
          { description: "Emit", status: "completed" },
          { description: `Round ${round}`, status: "in_progress" },
        ]);
        const cancel = await w.stop(`Round ${round} begun.`, false);
        expect(JSON.parse(cancel.stdout)).toEqual({});
        expect(cancel.stderr[0]).toContain("cancelled");
      }
    });
  });

  it("treats [no response text] as the user's cancel until a real prompt", async () => {
    const w = world();
    await w.prompt("Write.");
    await w.write([{ description: "Write", status: "pending" }]);
    const cancelled = await w.stop("[no response text]");
    expect(JSON.parse(cancelled.stdout)).toEqual({});
    expect(cancelled.stderr[0]).toContain("cancelled");
    await w.prompt(`${NUDGE_MARKER}\nOpen todos remain.`);
    await w.prompt("[System: You successfully executed a tool but returned an empty response.]");
    expect(JSON.parse((await w.stop("Some text.")).stdout)).toEqual({});
    await w.prompt("Go on.");
    // After the user speaks, a nudge needs the agent to work its list again.
    await w.write([{ description: "Write", status: "in_progress" }]);
    expect(blocks((await w.stop("Some more text.")).stdout)).toBe(true);
  });

  it("keeps writes made while an invoke_agent child runs off the session's list", async () => {
    const w = world();
    await w.prompt("Investigate.");
    await w.write([{ description: "Parent", status: "in_progress" }]);
    const agent = { agent_name: "generalist", prompt: "look" };
    await w.send({ hook_event_name: "BeforeTool", tool_name: "invoke_agent", tool_input: agent });
    const child = await w.write([{ description: "Child", status: "pending" }]);
    expect(child.stderr[0]).toContain("subagent");
    await w.send({
      hook_event_name: "AfterTool",
      tool_name: "invoke_agent",
      tool_input: agent,
      tool_response: {},
    });
    const snap = await w.store.read(geminiScope("s1"));
    expect(snap.todos.todos.map((t) => t.content)).toEqual(["Parent"]);
    // Once the child is done, the parent's own writes count again.
    await w.write([{ description: "Parent", status: "completed" }]);
    expect((await w.store.read(geminiScope("s1"))).todos.todos[0]?.status).toBe("completed");
  });

  it("waits when the agent's last words ask the user something", async () => {
    const w = world();
    await w.prompt("Plan.");
    await w.write([{ description: "Plan", status: "pending" }]);
    const asked = await w.stop("Which database should I use?");
    expect(JSON.parse(asked.stdout)).toEqual({});
    expect(asked.stderr[0]).toContain("awaiting-user");
  });
});
