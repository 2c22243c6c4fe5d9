import { describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope } from "../core/types.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { runWakeLoop } from "../runtime/wake-loop.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { runHook } from "./claude-code/handler.js";
import { analyzeTranscript } from "./claude-code/transcript.js";
import { latestModel } from "./codex/rollout.js";
import { parseHookArgs } from "./hook-kit/process.js";
import type { HookProject } from "./hook-kit/project.js";

const SESSION = "5b1c39a0-8f43-4a55-9d2e-0c4e1a7c2b11";
const scope = resolveScope({ kind: "session", host: "claude-code", sessionId: SESSION }) as Scope;

/** A Claude Code session whose project config says `mode`. */
function claudeSession(mode: "enforce" | "advise") {
  const store = new MemoryStore();
  let clock = 1_800_000_000_000;
  const project: HookProject = { problem: null, notice: null, mode };
  const send = (event: Record<string, unknown>) => {
    clock += 1000;
    return runHook(
      JSON.stringify({ session_id: SESSION, transcript_path: "/t.jsonl", cwd: "/p", ...event }),
      {
        store,
        now: () => clock,
        env: { HOME: "/home/test" },
        readTranscript: async () => [],
        project: () => project,
      },
    );
  };
  return {
    store,
    async stopWithOpenItems() {
      await send({ hook_event_name: "UserPromptSubmit", prompt: "do the work" });
      await send({
        hook_event_name: "PostToolUse",
        tool_name: "TodoWrite",
        tool_input: { todos: [{ content: "item 1", status: "pending", activeForm: "Doing 1" }] },
        tool_response: {},
      });
      return send({
        hook_event_name: "Stop",
        stop_hook_active: false,
        last_assistant_message: "Stopping.",
      });
    },
  };
}

describe("advise mode, per host path", () => {
  it("Claude Code: the block reply is never written; the log says it would have nudged", async () => {
    const advise = claudeSession("advise");
    const out = await advise.stopWithOpenItems();
    expect(out.stdout).toBe("");
    expect(out.stderr.join("\n")).toMatch(
      /stop allowed \(advise mode: would nudge, nudge 1 of episode/,
    );
    const log = await advise.store.readLog(scope);
    expect(log.at(-1)).toMatchObject({ action: "inject", advise: true });
    // The same session in enforce mode is blocked: the difference is the mode alone.
    const enforce = claudeSession("enforce");
    expect(JSON.parse((await enforce.stopWithOpenItems()).stdout).decision).toBe("block");
  });

  it("hook hosts take --mode, and refuse a bad one by name", () => {
    expect(parseHookArgs("codex", ["--mode", "advise"]).mode).toBe("advise");
    expect(parseHookArgs("gemini", []).mode).toBeUndefined();
    expect(() => parseHookArgs("claude-code", ["--mode", "warn"])).toThrow(
      'hook claude-code: --mode must be enforce or advise, got "warn"',
    );
  });

  it("AI SDK wake loop: a due nudge ends the loop as `advise`, nothing is sent", async () => {
    const store = new MemoryStore();
    const runtime = new ContinuationRuntime({ store, mode: "advise" });
    const s = resolveScope({ kind: "session", host: "ai-sdk", sessionId: "w1" }) as Scope;
    await runtime.turnStarted(s, { real: true });
    const nudges: unknown[] = [];
    const result = await runWakeLoop({
      runtime,
      scope: s,
      runTurn: async ({ nudge }) => {
        if (nudge !== null) nudges.push(nudge);
        await runtime.setTodos(s, [
          { content: "a", status: "completed" },
          { content: "b", status: "pending" },
        ]);
        return { stopReason: "stop", model: "gpt-5" };
      },
    });
    expect(result.stoppedBy).toBe("advise");
    expect(nudges).toHaveLength(0);
    expect((await store.read(s)).state.lastOutcome?.model).toBe("gpt-5");
  });
});

describe("the model of each turn, as hosts report it", () => {
  it("Claude Code: message.model of the newest response, not a synthetic one", () => {
    const at = "2026-01-01T00:00:00.000Z";
    const line = (model: string, id: string) =>
      JSON.stringify({
        type: "assistant",
        timestamp: at,
        message: { id, model, usage: { input_tokens: 1, output_tokens: 1 } },
      });
    expect(
      analyzeTranscript([line("claude-sonnet-4-5-20250929", "a"), line("<synthetic>", "b")], 0)
        .model,
    ).toBe("claude-sonnet-4-5-20250929");
  });

  it("Codex: the newest turn_context's model", () => {
    const ctx = (model: string) => JSON.stringify({ type: "turn_context", payload: { model } });
    expect(latestModel([ctx("gpt-5"), "{}", ctx("gpt-5-codex")])).toBe("gpt-5-codex");
    expect(latestModel(["{}"])).toBeUndefined();
  });
});
