import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { QWEN_HOOK } from "../qwen/hook.js";
import { captureIo } from "../test-support/hook-io.js";
import { CLAIM_RENEWED_AFTER_MS } from "./event-claim.js";
import { runHookMain } from "./main.js";

const project = mkdtempSync(join(tmpdir(), "tc-hook-main-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

/**
 * Qwen Code's hook whose event takes `tookMs` of the clock (a project's check at a stop, say):
 * time is moved on while it runs.
 */
function slowQwen(tookMs: number): typeof QWEN_HOOK {
  return {
    ...QWEN_HOOK,
    handle: async (event, context) => {
      const reply = await QWEN_HOOK.handle(event, context);
      vi.setSystemTime(Date.now() + tookMs);
      return reply;
    },
  };
}

async function run(spec: typeof QWEN_HOOK, event: Record<string, unknown>, target: string) {
  const stdin = JSON.stringify({ session_id: "s-1", cwd: project, ...event });
  const { io, out, err } = captureIo(stdin, { QWEN_PROJECT_DIR: project }, project);
  await runHookMain(spec, ["hook", "qwen", "--target", target], io);
  return { stdout: out(), stderr: err() };
}

describe("runHookMain with ours installed twice", () => {
  it("leaves a twin run after a long event (a sequential group) nothing to do", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const prompt = { hook_event_name: "UserPromptSubmit", prompt: "go", submitted_prompt: "go" };
    // Longer than a twin's window (30 s): the claim is renewed as the event ends.
    const first = await run(slowQwen(CLAIM_RENEWED_AFTER_MS * 4), prompt, "project");
    expect(first.stderr).not.toContain("handled by another");
    const second = await run(QWEN_HOOK, prompt, "user");
    expect(second.stderr).toContain("handled by another installed copy of this hook");
  });

  it("renews nothing for a short event: its twin is within the window anyway", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const prompt = {
      hook_event_name: "UserPromptSubmit",
      prompt: "again",
      submitted_prompt: "again",
    };
    await run(slowQwen(CLAIM_RENEWED_AFTER_MS / 2), prompt, "project");
    const second = await run(QWEN_HOOK, prompt, "user");
    expect(second.stderr).toContain("handled by another installed copy of this hook");
  });
});
