import { generateText, type ModelMessage, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import type { Scope } from "../../core/types.js";
import { ContinuationRuntime } from "../../runtime/index.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { lastUserText, type Step, scriptedModel } from "./test-support/mock-model.js";
import { createTodoTools } from "./tools.js";
import { runWithTodos } from "./wake-loop.js";

const scope: Scope = { key: "session/smcp.sai-sdk-test", kind: "session" };

const todos = (statuses: string[]) => ({
  todos: statuses.map((status, i) => ({ content: `step ${i + 1}`, status })),
});

function setup(
  steps: Step[],
  runtimeOptions: Partial<ConstructorParameters<typeof ContinuationRuntime>[0]> = {},
) {
  const store = new MemoryStore();
  const runtime = new ContinuationRuntime({ store, dialect: "typeclaw", ...runtimeOptions });
  const tools = createTodoTools({ runtime, scope });
  const { model } = scriptedModel(steps);
  const generate = (input: { messages: ModelMessage[]; abortSignal?: AbortSignal }) =>
    generateText({ model, tools, stopWhen: stepCountIs(10), ...input });
  return { store, runtime, model, generate };
}

describe("runWithTodos", () => {
  it("continues an early stop with the nudge as a user message until the list is done", async () => {
    const { store, runtime, model, generate } = setup([
      { tool: "todo_write", input: todos(["in_progress", "pending", "pending"]) },
      { text: "I have planned the work." }, // early stop with three items open
      { tool: "todo_write", input: todos(["completed", "in_progress", "pending"]) },
      { text: "First step done." },
      { tool: "todo_write", input: todos(["completed", "completed", "completed"]) },
      { text: "All three steps are done." },
    ]);
    const result = await runWithTodos({
      runtime,
      scope,
      messages: [{ role: "user", content: "Do the three steps." }],
      generate,
    });

    expect(result).toMatchObject({
      state: "dormant",
      cycles: 2,
      lastSkip: null,
      stoppedBy: "nothing-actionable",
      aborted: false,
    });
    expect(result.results).toHaveLength(3);
    expect(result.nudges.map((n) => n.autoTurn)).toEqual([1, 2]);
    // The model received each nudge as the last user message of its next call.
    const prompts = model.doGenerateCalls.map((call) => lastUserText(call.prompt));
    expect(prompts[2]).toBe(result.nudges[0]?.text);
    expect(prompts[4]).toBe(result.nudges[1]?.text);
    expect(result.nudges[0]?.text).toContain("step 2");
    // The conversation the caller gets back holds the nudges in order.
    const userTexts = result.messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(userTexts).toEqual([
      "Do the three steps.",
      result.nudges[0]?.text,
      result.nudges[1]?.text,
    ]);
    const stored = await store.read(scope);
    expect(stored.todos.todos.map((t) => t.status)).toEqual([
      "completed",
      "completed",
      "completed",
    ]);
  });

  it("ends at the budget when the model makes no progress, with the reason logged", async () => {
    const { store, runtime, generate } = setup(
      [
        { tool: "todo_write", input: todos(["pending", "pending"]) },
        { text: "Planned." },
        // From here on the model only talks: the list never changes.
      ],
      { limits: { maxAutoTurns: 3, stagnationLimit: 0 } },
    );
    const result = await runWithTodos({
      runtime,
      scope,
      messages: [{ role: "user", content: "Do it." }],
      generate,
    });

    expect(result).toMatchObject({ state: "idle", cycles: 3, lastSkip: "max-auto-turns" });
    expect(result.results).toHaveLength(4);
    const log = await store.readLog(scope);
    expect(log.filter((e) => e.action === "inject")).toHaveLength(3);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "max-auto-turns" });
  });

  it("says it stopped on the wake budget, which every preset sets to its auto-turn limit", async () => {
    const { runtime, generate } = setup(
      [{ tool: "todo_write", input: todos(["pending", "pending"]) }, { text: "Planned." }],
      { preset: "pi", limits: { stagnationLimit: 0 } },
    );
    expect(runtime.preset.maxWakeCycles).toBe(runtime.preset.limits.maxAutoTurns);
    const result = await runWithTodos({
      runtime,
      scope,
      messages: [{ role: "user", content: "Do it." }],
      generate,
    });
    expect(result).toMatchObject({
      state: "idle",
      cycles: runtime.preset.maxWakeCycles,
      lastSkip: null,
      stoppedBy: "wake-budget",
    });
  });

  it("stops after one wasted nudge under the default strict progress rule", async () => {
    const { runtime, generate } = setup([
      { tool: "todo_write", input: todos(["pending", "pending"]) },
      { text: "Planned." },
      { text: "Still thinking." },
    ]);
    const result = await runWithTodos({
      runtime,
      scope,
      messages: [{ role: "user", content: "Do it." }],
      generate,
    });
    expect(result).toMatchObject({ state: "idle", cycles: 1, lastSkip: "stagnation" });
  });

  it("respects an abort: nothing more is sent, and only a real user turn lifts the block", async () => {
    const controller = new AbortController();
    const { store, runtime, model, generate } = setup([
      { tool: "todo_write", input: todos(["pending", "pending"]) },
      { text: "Planned." },
      {
        // The user presses stop while the nudged turn runs.
        fail: () => {
          controller.abort();
          throw Object.assign(new Error("The operation was aborted."), { name: "AbortError" });
        },
      },
    ]);
    const first = await runWithTodos({
      runtime,
      scope,
      messages: [{ role: "user", content: "Do it." }],
      generate,
      abortSignal: controller.signal,
    });
    expect(first).toMatchObject({ state: "idle", aborted: true, lastSkip: "user-abort-blocked" });
    expect(model.doGenerateCalls).toHaveLength(3);
    expect((await store.read(scope)).state.userAbortBlocked).toBe(true);

    // The abort block holds for idles that follow...
    const blocked = await runtime.explain(scope);
    expect(blocked.decision).toMatchObject({ action: "skip", reason: "user-abort-blocked" });

    // ...until the user speaks again.
    const second = await runWithTodos({
      runtime,
      scope,
      messages: [...first.messages, { role: "user", content: "Go on." }],
      generate,
    });
    expect(second.aborted).toBe(false);
    expect((await store.read(scope)).state.userAbortBlocked).toBe(false);
    expect(second.cycles).toBeGreaterThan(0);
  });

  it("never calls the model when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const { model, runtime, generate } = setup([{ text: "unused" }]);
    const result = await runWithTodos({
      runtime,
      scope,
      messages: [{ role: "user", content: "Do it." }],
      generate,
      abortSignal: controller.signal,
    });
    expect(result.aborted).toBe(true);
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it("hands a refused write to the model as a reminder on its next turn, keeping the list", async () => {
    const { store, runtime, model, generate } = setup([
      { tool: "todo_write", input: todos(["pending", "pending"]) },
      { tool: "todo_write", input: { todos: [{ content: "step 1", status: "finished" }] } },
      { text: "Stopping." },
      { tool: "todo_write", input: todos(["completed", "completed"]) },
      { text: "Done." },
    ]);
    const result = await runWithTodos({
      runtime,
      scope,
      messages: [{ role: "user", content: "Do it." }],
      generate,
    });
    // The refused call came back to the model as a tool error naming the field.
    const refused = result.results[0]?.steps[1]?.content.find((p) => p.type === "tool-error");
    expect(String((refused as { error?: unknown } | undefined)?.error)).toContain("status");
    // The list survived the bad call.
    expect(result.nudges[0]?.text).toContain("step 2");
    // The nudged call opened with the reminder, then the nudge.
    const nudged = lastUserText(model.doGenerateCalls[3]!.prompt);
    expect(nudged).toMatch(/^<system-reminder>\n.*todo_write/s);
    expect(nudged.endsWith(result.nudges[0]!.text)).toBe(true);
    expect((await store.read(scope)).state.reminders).toEqual([]);
  });

  it("records a failed call as unsafe and rethrows it", async () => {
    const { store, runtime, generate } = setup([
      {
        fail: () => {
          throw new Error("upstream exploded");
        },
      },
    ]);
    await expect(
      runWithTodos({ runtime, scope, messages: [{ role: "user", content: "Do it." }], generate }),
    ).rejects.toThrow("upstream exploded");
    expect((await store.read(scope)).state.lastOutcome?.stopReason).toBe("error");
  });
});
