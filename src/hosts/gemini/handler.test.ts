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

  it("does not answer a hollow AfterAgent (no new text, no list change) a second time", async () => {
    const w = world("parley");
    await w.prompt("Refactor.");
    await w.write([{ description: "Refactor", status: "pending" }]);
    expect(blocks((await w.stop("Pausing.")).stdout)).toBe(true);
    const hollow = await w.stop("Pausing.", true);
    expect(JSON.parse(hollow.stdout)).toEqual({});
    expect(hollow.stderr[0]).toContain("turn-not-safe");
    // Growth is a new turn.
    expect(blocks((await w.stop("Pausing.\nLooked again.", true)).stdout)).toBe(true);
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
