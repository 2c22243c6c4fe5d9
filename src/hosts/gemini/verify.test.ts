import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory-store.js";
import type { HookProject } from "../hook-kit/project.js";
import { fileChildRuns } from "./children.js";
import { geminiScope, handleGeminiHookEvent } from "./handler.js";
import { type GeminiHookEvent, parseGeminiHookObject } from "./payload.js";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A Gemini CLI session whose hook is given `project` as the project's config. */
function session(project: HookProject) {
  const root = mkdtempSync(join(tmpdir(), "gem-verify-"));
  roots.push(root);
  const store = new MemoryStore();
  const children = fileChildRuns(join(root, "children"));
  let clock = 1_000_000;
  let asked = 0;
  const send = (fields: Record<string, unknown>) =>
    handleGeminiHookEvent(
      parseGeminiHookObject({ session_id: "s1", cwd: "/p", ...fields }) as GeminiHookEvent,
      {
        store,
        children,
        now: () => (clock += 1000),
        project: () => {
          asked++;
          return project;
        },
      },
    );
  return {
    store,
    asked: () => asked,
    prompt: () => send({ hook_event_name: "BeforeAgent", prompt: "Build it." }),
    write: (...statuses: string[]) =>
      send({
        hook_event_name: "AfterTool",
        tool_name: "write_todos",
        tool_input: { todos: statuses.map((status, i) => ({ description: `t${i}`, status })) },
      }),
    stop: () =>
      send({ hook_event_name: "AfterAgent", prompt: "Build it.", prompt_response: "Done." }),
  };
}

describe("Gemini CLI hook and the project config", () => {
  it("allows the turn to end on an invalid config and logs config-invalid with the error", async () => {
    const s = session({ problem: "c.json: verify.command must be ...", notice: null });
    await s.prompt();
    await s.write("in_progress", "pending");
    expect(s.asked()).toBe(0);
    const out = await s.stop();
    expect(s.asked()).toBe(1);
    expect(out.stdout).toBe("{}");
    expect(out.stderr.join("\n")).toContain("stop allowed (config-invalid)");
    const [entry] = await s.store.readLog(geminiScope("s1"));
    expect(entry).toMatchObject({
      reason: "config-invalid",
      note: "c.json: verify.command must be ...",
    });
  });

  it("applies the file's limits, and says a verify waits for trust once the list is finished", async () => {
    const s = session({
      problem: null,
      notice: "verify not run: c.json is not trusted",
      limits: { maxAutoTurns: 0 },
    });
    await s.prompt();
    await s.write("in_progress");
    const early = await s.stop();
    expect(early.stderr.join("\n")).toContain("max-auto-turns");
    expect(early.stderr.join("\n")).not.toContain("not trusted");
    await s.write("completed");
    expect((await s.stop()).stderr.join("\n")).toContain("verify not run: c.json is not trusted");
  });
});
