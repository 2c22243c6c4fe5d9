import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Scope } from "../../core/types.js";
import { ContinuationRuntime } from "../../runtime/index.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { lastUserText, type Step, scriptedModel } from "./test-support/mock-model.js";
import { createTodoTools } from "./tools.js";
import { aiSdkVerify, runWithTodos } from "./wake-loop.js";

const scope: Scope = { key: "session/smcp.sai-sdk-verify", kind: "session" };
const todos = (statuses: string[]) => ({
  todos: statuses.map((status, i) => ({ content: `step ${i + 1}`, status })),
});

let repo: string;
let cache: string;
beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "tc-ai-sdk-verify-"));
  cache = mkdtempSync(join(tmpdir(), "tc-ai-sdk-cache-"));
  execFileSync("git", ["init", "-q"], { cwd: repo });
  writeFileSync(join(repo, "README.md"), "a project\n");
});
afterEach(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

/** The model's calls; `after(n)` runs after the n-th call (the agent's side effects). */
function setup(steps: Step[], after: (call: number) => void = () => {}) {
  const store = new MemoryStore();
  const runtime = new ContinuationRuntime({ store, dialect: "typeclaw" });
  const tools = createTodoTools({ runtime, scope });
  const { model } = scriptedModel(steps);
  let calls = 0;
  const generate = async (input: { messages: ModelMessage[]; abortSignal?: AbortSignal }) => {
    const result = await generateText({ model, tools, stopWhen: stepCountIs(10), ...input });
    after(++calls);
    return result;
  };
  return { store, runtime, model, generate };
}

describe("runWithTodos with verify", () => {
  it("a false finish is sent back with the check's failure; once the file exists the loop ends verified", async () => {
    const { store, runtime, model, generate } = setup(
      [
        { tool: "todo_write", input: todos(["completed", "completed"]) },
        { text: "All done." }, // claims done; the check fails
        { text: "Created the missing file." },
      ],
      (call) => {
        if (call === 2) writeFileSync(join(repo, "DONE"), "yes\n");
      },
    );
    const result = await runWithTodos({
      runtime,
      scope,
      messages: [{ role: "user", content: "Do both steps." }],
      generate,
      verify: {
        command: 'test -e DONE || { echo "DONE is missing"; exit 1; }',
        cwd: repo,
        cacheDir: cache,
      },
    });
    expect(result).toMatchObject({ state: "dormant", cycles: 1, stoppedBy: "verified" });
    expect(result.nudges).toHaveLength(1);
    const prompt = lastUserText(model.doGenerateCalls[2]?.prompt ?? []);
    expect(prompt).toContain("the project's check fails");
    expect(prompt).toContain("DONE is missing");
    const log = await store.readLog(scope);
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "verified"]);
    expect(log.at(-1)?.note).toMatch(/^verified in /);
  });

  it("without verify a finished list ends the loop as before", async () => {
    const { runtime, generate } = setup([
      { tool: "todo_write", input: todos(["completed"]) },
      { text: "Done." },
    ]);
    const result = await runWithTodos({
      runtime,
      scope,
      messages: [{ role: "user", content: "Go." }],
      generate,
    });
    expect(result.stoppedBy).toBe("nothing-actionable");
  });

  it("refuses a bad verify with an error naming the field, before recording anything", async () => {
    const { store, runtime, generate } = setup([]);
    const run = (verify: unknown) =>
      runWithTodos({
        runtime,
        scope,
        messages: [{ role: "user", content: "Go." }],
        generate,
        verify: verify as never,
      });
    await expect(run({ command: "", cwd: repo })).rejects.toThrow(
      /verify\.command must be a shell command/,
    );
    await expect(run({ command: "make", cwd: "relative" })).rejects.toThrow(
      /verify\.cwd must be an absolute path/,
    );
    await expect(run({ command: "make", cwd: join(repo, "gone") })).rejects.toThrow(
      /verify\.cwd must be an existing folder/,
    );
    await expect(run({ command: "make", cwd: repo, timeoutMs: 10 })).rejects.toThrow(
      /verify\.timeoutMs must be an integer from 1000/,
    );
    await expect(run({ command: "make", cwd: repo, when: "always" })).rejects.toThrow(
      /verify\.when must be one of/,
    );
    await expect(run({ command: "make", cwd: repo, timeout: 5 })).rejects.toThrow(
      /verify\.timeout is not a known option/,
    );
    expect(await store.readLog(scope)).toEqual([]);
    expect((await store.read(scope)).state.lastUserTurnAt ?? null).toBeNull();
  });

  it("fills in the defaults", () => {
    expect(aiSdkVerify({ command: "npm test", cwd: repo }, { root: cache })).toEqual({
      settings: { command: "npm test", timeoutMs: 120_000, when: "finished" },
      cwd: repo,
      cacheDir: cache,
    });
  });
});
