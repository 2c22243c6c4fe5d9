import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HookInputError } from "../claude-code/payload.js";
import { isRealUserPrompt } from "../claude-code/prompt-source.js";
import { parseQwenHookInput, QWEN_MACHINE_SOURCE } from "./payload.js";

const BASE = { session_id: "s-1", cwd: "/p", transcript_path: "/t.jsonl" };

describe("Qwen Code hook input", () => {
  it("counts a prompt as a person's only when it carries submitted_prompt", () => {
    const typed = parseQwenHookInput(
      JSON.stringify({
        ...BASE,
        hook_event_name: "UserPromptSubmit",
        prompt: "go",
        submitted_prompt: "go",
      }),
    );
    // Qwen runs UserPromptSubmit again before the model call after a tool result, and after a Stop block.
    const afterTool = parseQwenHookInput(
      JSON.stringify({ ...BASE, hook_event_name: "UserPromptSubmit", prompt: "" }),
    );
    const afterBlock = parseQwenHookInput(
      JSON.stringify({ ...BASE, hook_event_name: "UserPromptSubmit", prompt: "Open todos remain" }),
    );
    expect(typed).toMatchObject({ kind: "UserPromptSubmit", source: "user" });
    expect(afterTool).toMatchObject({ kind: "UserPromptSubmit", source: QWEN_MACHINE_SOURCE });
    expect(afterBlock).toMatchObject({ source: QWEN_MACHINE_SOURCE });
    expect(isRealUserPrompt("go", "user")).toBe(true);
    expect(isRealUserPrompt("Open todos remain", QWEN_MACHINE_SOURCE)).toBe(false);
  });

  it("reads a Stop's crons as scheduled work and todo_write's PostToolUse as a tool event", () => {
    const stop = parseQwenHookInput(
      JSON.stringify({
        ...BASE,
        hook_event_name: "Stop",
        stop_hook_active: false,
        last_assistant_message: "done",
        background_tasks: [],
        crons: [{ id: "c1" }],
        context_usage: 0.1,
      }),
    );
    expect(stop).toMatchObject({ kind: "Stop", sessionCrons: [{ id: "c1" }] });
    const tool = parseQwenHookInput(
      JSON.stringify({
        ...BASE,
        hook_event_name: "PostToolUse",
        tool_name: "todo_write",
        tool_input: { todos: [] },
        agent_id: "sub-1",
      }),
    );
    expect(tool).toMatchObject({ kind: "PostToolUse", toolName: "todo_write", agentId: "sub-1" });
  });

  it("names what was wrong with bad input, and never throws anything else", () => {
    expect(() => parseQwenHookInput("garbage")).toThrow(/hook input is not JSON/);
    expect(() => parseQwenHookInput("[]")).toThrow(/must be a JSON object, got an array/);
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          parseQwenHookInput(text);
        } catch (error) {
          expect(error).toBeInstanceOf(HookInputError);
        }
      }),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (raw) => {
        try {
          parseQwenHookInput(JSON.stringify({ ...raw, hook_event_name: "UserPromptSubmit" }));
        } catch (error) {
          expect(error).toBeInstanceOf(HookInputError);
        }
      }),
    );
  });
});
