import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CodexHookInputError, parseCodexHookInput, parseCodexHookObject } from "./payload.js";

// Payloads as Codex CLI 0.169.0 sent them (paths shortened).
const BASE = {
  session_id: "01a2164d-bf88-7433-8fc1-99e5806455da",
  turn_id: "01a2164d-c04b-78d2-9ee2-1ed8d68352a8",
  transcript_path: "/home/.codex/sessions/2026/11/26/rollout.jsonl",
  cwd: "/tmp/proj",
  model: "scripted",
  permission_mode: "bypassPermissions",
};

describe("parseCodexHookInput", () => {
  it("reads the events Codex sends", () => {
    expect(
      parseCodexHookInput(
        JSON.stringify({ ...BASE, hook_event_name: "UserPromptSubmit", prompt: "do the thing" }),
      ),
    ).toMatchObject({ kind: "UserPromptSubmit", prompt: "do the thing", agentId: null });
    expect(
      parseCodexHookObject({
        ...BASE,
        hook_event_name: "PostToolUse",
        tool_name: "update_plan",
        tool_input: { plan: [{ step: "a", status: "in_progress" }] },
        tool_response: "Plan updated",
        tool_use_id: "call_1",
      }),
    ).toMatchObject({ kind: "PostToolUse", toolName: "update_plan", toolResponse: "Plan updated" });
    expect(
      parseCodexHookObject({
        ...BASE,
        hook_event_name: "Stop",
        stop_hook_active: true,
        last_assistant_message: "ok second",
      }),
    ).toMatchObject({ kind: "Stop", stopHookActive: true, lastAssistantMessage: "ok second" });
    expect(parseCodexHookObject({ ...BASE, hook_event_name: "Interrupt" })).toMatchObject({
      kind: "Interrupt",
      turnId: BASE.turn_id,
      sessionId: BASE.session_id,
    });
  });

  it("keeps a subagent's agent_id, and ignores events it does not act on", () => {
    const child = parseCodexHookObject({
      ...BASE,
      agent_id: "01a2164e-91ec-7621-b6f0-a75fe9e7c3b7",
      agent_type: "default",
      hook_event_name: "UserPromptSubmit",
      prompt: "SUBTASK",
    });
    expect(child).toMatchObject({ agentId: "01a2164e-91ec-7621-b6f0-a75fe9e7c3b7" });
    expect(
      parseCodexHookObject({ ...BASE, hook_event_name: "SubagentStop", agent_id: "x" }),
    ).toEqual({ kind: "other", name: "SubagentStop" });
    expect(parseCodexHookObject({ session_id: "s", hook_event_name: "SessionStart" })).toEqual({
      kind: "other",
      name: "SessionStart",
    });
  });

  it("names the field that is wrong", () => {
    expect(() => parseCodexHookInput("[]")).toThrow(/JSON object/);
    expect(() => parseCodexHookInput("{")).toThrow(/not JSON/);
    expect(() => parseCodexHookObject({ ...BASE, hook_event_name: "Stop", session_id: 3 })).toThrow(
      /session_id/,
    );
    expect(() =>
      parseCodexHookObject({ ...BASE, hook_event_name: "Stop", stop_hook_active: "yes" }),
    ).toThrow(/stop_hook_active/);
    expect(() =>
      parseCodexHookObject({ ...BASE, hook_event_name: "UserPromptSubmit", prompt: 1 }),
    ).toThrow(/prompt/);
    expect(() => parseCodexHookObject({ ...BASE, hook_event_name: "Stop", agent_id: 5 })).toThrow(
      /agent_id/,
    );
  });

  it("either parses or throws its own error, for any JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          parseCodexHookInput(JSON.stringify(value));
        } catch (error) {
          expect(error).toBeInstanceOf(CodexHookInputError);
        }
      }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom("UserPromptSubmit", "PostToolUse", "Stop", "Interrupt"),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (name, extra) => {
          try {
            parseCodexHookObject({ ...extra, hook_event_name: name });
          } catch (error) {
            expect(error).toBeInstanceOf(CodexHookInputError);
          }
        },
      ),
    );
  });
});
