import { describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { Scope } from "../../core/types.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import type { HookProject } from "../hook-kit/project.js";
import { runCodexHookText } from "./handler.js";

const SESSION = "01a2164d-bf88-7433-8fc1-99e5806455db";
const scope = resolveScope({ kind: "session", host: "codex", sessionId: SESSION }) as Scope;

/** A Codex session whose hook is given `project` as the project's config. */
function session(project: HookProject) {
  const store = new MemoryStore();
  let asked = 0;
  let clock = 1_800_000_000_000;
  const send = (event: Record<string, unknown>) => {
    clock += 1000;
    return runCodexHookText(
      JSON.stringify({
        session_id: SESSION,
        turn_id: "t1",
        transcript_path: null,
        cwd: "/p",
        model: "scripted",
        permission_mode: "default",
        ...event,
      }),
      {
        store,
        now: () => clock,
        project: () => {
          asked++;
          return project;
        },
      },
    );
  };
  const plan = (...statuses: string[]) =>
    send({
      hook_event_name: "PostToolUse",
      tool_name: "update_plan",
      tool_input: { plan: statuses.map((status, i) => ({ step: `step ${i + 1}`, status })) },
      tool_response: "Plan updated",
      tool_use_id: "c1",
    });
  const stop = () =>
    send({ hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "Done." });
  return {
    store,
    plan,
    stop,
    asked: () => asked,
    prompt: () => send({ hook_event_name: "UserPromptSubmit", prompt: "go" }),
  };
}

describe("Codex hook and the project config", () => {
  it("allows the stop on an invalid config and logs config-invalid with the error", async () => {
    const s = session({ problem: "c.json: limits.maxAutoTurns must be ...", notice: null });
    await s.prompt();
    await s.plan("in_progress", "pending");
    const out = await s.stop();
    expect(out.stdout).toBe("");
    expect(out.stderr.join("\n")).toContain("stop allowed (config-invalid): c.json");
    const [entry] = await s.store.readLog(scope);
    expect(entry).toMatchObject({
      reason: "config-invalid",
      note: "c.json: limits.maxAutoTurns must be ...",
    });
  });

  it("reads the config only at a stop, and applies the file's limits", async () => {
    const s = session({ problem: null, notice: null, limits: { maxAutoTurns: 0 } });
    await s.prompt();
    await s.plan("in_progress", "pending");
    expect(s.asked()).toBe(0);
    const out = await s.stop();
    expect(s.asked()).toBe(1);
    expect(out.stdout).toBe("");
    expect(out.stderr.join("\n")).toContain("max-auto-turns");
  });

  it("says a verify waits for trust once the plan is finished, not before", async () => {
    const s = session({ problem: null, notice: "verify not run: c.json is not trusted" });
    await s.prompt();
    await s.plan("in_progress");
    expect((await s.stop()).stderr.join("\n")).not.toContain("not trusted");
    await s.plan("completed");
    expect((await s.stop()).stderr.join("\n")).toContain("verify not run: c.json is not trusted");
  });
});
