import { describe, expect, it } from "vitest";
import {
  GEMINI_HOOK_SPECS,
  GeminiSettingsError,
  mergeGeminiHooks,
  ourGeminiHandlers,
  removeGeminiHooks,
  todoToolOf,
  toolFactsOf,
} from "./settings.js";

const foreign = {
  model: { name: "gemini-2.5-pro" },
  hooks: {
    AfterAgent: [{ hooks: [{ name: "notify", type: "command", command: "./notify.sh" }] }],
    BeforeTool: [
      { matcher: "run_shell_command", hooks: [{ type: "command", command: "./guard.sh" }] },
    ],
  },
};

describe("mergeGeminiHooks / removeGeminiHooks", () => {
  it("adds one named handler per event, keeps the user's hooks, and is idempotent", () => {
    const merged = mergeGeminiHooks(foreign, "node /x/hook-main.js");
    expect(merged.changes).toHaveLength(GEMINI_HOOK_SPECS.length);
    const hooks = merged.settings.hooks as Record<
      string,
      { matcher?: string; hooks: { name?: string }[] }[]
    >;
    expect(hooks.AfterAgent?.[0]?.hooks[0]?.name).toBe("notify");
    expect(hooks.AfterAgent?.[1]?.hooks[0]).toMatchObject({
      name: "todo-continuation",
      timeout: 30000,
    });
    expect(hooks.AfterTool?.[0]?.matcher).toContain("write_todos");
    expect(hooks.AfterTool?.[0]?.matcher).toContain("tracker_update_task");
    expect(hooks.BeforeTool?.[1]?.matcher).toBe("^(invoke_agent)$");
    expect(ourGeminiHandlers(merged.settings)).toHaveLength(GEMINI_HOOK_SPECS.length);
    const again = mergeGeminiHooks(merged.settings, "node /x/hook-main.js");
    expect(again.changes).toEqual([]);
    expect(again.settings).toEqual(merged.settings);
  });

  it("updates the command in place when it changes, and drops events no longer used", () => {
    const merged = mergeGeminiHooks(foreign, "node /old.js");
    const withStale = structuredClone(merged.settings) as { hooks: Record<string, unknown[]> };
    withStale.hooks.SessionStart = [
      { hooks: [{ name: "todo-continuation", type: "command", command: "node /old.js" }] },
    ];
    const updated = mergeGeminiHooks(withStale, "node /new.js");
    expect(updated.changes).toContain("updated AfterAgent hook");
    expect(
      updated.changes.some((c) => c.includes("SessionStart") && c.includes("no longer used")),
    ).toBe(true);
    expect(ourGeminiHandlers(updated.settings).every((h) => h.command === "node /new.js")).toBe(
      true,
    );
  });

  it("removes exactly what it added", () => {
    const merged = mergeGeminiHooks(foreign, "node /x.js");
    const removed = removeGeminiHooks(merged.settings);
    expect(removed.settings).toEqual(foreign);
    expect(removeGeminiHooks(foreign).changes).toEqual([]);
    expect(removeGeminiHooks(mergeGeminiHooks({}, "c").settings).settings).toEqual({});
  });

  it("refuses settings it cannot read, naming the field", () => {
    expect(() => mergeGeminiHooks([], "c")).toThrow(GeminiSettingsError);
    expect(() => mergeGeminiHooks({ hooks: [] }, "c")).toThrow(/"hooks" must be an object/);
    expect(() => mergeGeminiHooks({ hooks: { AfterAgent: {} } }, "c")).toThrow(/hooks.AfterAgent/);
  });
});

describe("todoToolOf", () => {
  it("follows Gemini CLI 0.61.0's rules for which agent has a todo tool", () => {
    expect(todoToolOf(toolFactsOf({ model: { name: "gemini-2.5-flash" } })).tool).toBe(
      "write_todos",
    );
    expect(todoToolOf(toolFactsOf({})).tool).toBeNull();
    expect(todoToolOf(toolFactsOf({ model: { name: "gemini-3-flash-preview" } })).tool).toBeNull();
    expect(
      todoToolOf(toolFactsOf({ model: { name: "gemini-2.5-flash" }, useWriteTodos: false })).tool,
    ).toBeNull();
    expect(todoToolOf(toolFactsOf({ experimental: { taskTracker: true } })).tool).toBe("tracker");
    expect(todoToolOf(toolFactsOf({})).why).toContain("taskTracker");
  });

  it("notices hooks switched off", () => {
    expect(toolFactsOf({ hooksConfig: { enabled: false } }).hooksDisabled).toBe(true);
    expect(toolFactsOf({ hooksConfig: { disabled: ["todo-continuation"] } }).ourHookDisabled).toBe(
      true,
    );
  });
});
