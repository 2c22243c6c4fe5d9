import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GeminiHookInputError, parseGeminiHookInput, parseGeminiHookObject } from "./payload.js";

const base = { session_id: "s-1", transcript_path: "/t.jsonl", cwd: "/p", timestamp: "now" };

describe("parseGeminiHookInput", () => {
  it("reads the four events we act on, as Gemini CLI 0.61.0 sends them", () => {
    expect(
      parseGeminiHookObject({ ...base, hook_event_name: "BeforeAgent", prompt: "do it" }),
    ).toEqual({
      kind: "BeforeAgent",
      sessionId: "s-1",
      cwd: "/p",
      transcriptPath: "/t.jsonl",
      prompt: "do it",
    });
    const after = parseGeminiHookObject({
      ...base,
      hook_event_name: "AfterAgent",
      prompt: "do it",
      prompt_response: "planning \nI stopped early",
      stop_hook_active: true,
    });
    expect(after).toMatchObject({
      kind: "AfterAgent",
      promptResponse: "planning \nI stopped early",
      stopHookActive: true,
    });
    const tool = parseGeminiHookObject({
      ...base,
      hook_event_name: "AfterTool",
      tool_name: "write_todos",
      tool_input: { todos: [] },
      tool_response: { llmContent: "ok" },
    });
    expect(tool).toMatchObject({
      kind: "AfterTool",
      toolName: "write_todos",
      toolInput: { todos: [] },
    });
    expect(
      parseGeminiHookObject({
        ...base,
        hook_event_name: "BeforeTool",
        tool_name: "invoke_agent",
        tool_input: {},
      }),
    ).toMatchObject({ kind: "BeforeTool", toolName: "invoke_agent" });
  });

  it("passes over events it does not act on without reading their fields", () => {
    expect(parseGeminiHookObject({ hook_event_name: "SessionEnd" })).toEqual({
      kind: "other",
      name: "SessionEnd",
    });
  });

  it("names the field that is wrong", () => {
    expect(() => parseGeminiHookInput("not json")).toThrow(/not JSON/);
    expect(() => parseGeminiHookInput("[]")).toThrow(/JSON object, got an array/);
    expect(() => parseGeminiHookObject({ hook_event_name: "AfterAgent", session_id: "" })).toThrow(
      /session_id/,
    );
    expect(() =>
      parseGeminiHookObject({ ...base, hook_event_name: "AfterAgent", prompt_response: 3 }),
    ).toThrow(/prompt_response must be a string/);
    expect(() =>
      parseGeminiHookObject({ ...base, hook_event_name: "AfterAgent", stop_hook_active: "yes" }),
    ).toThrow(/stop_hook_active must be a boolean/);
  });

  it("never throws anything but its own error, whatever the input", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        try {
          parseGeminiHookInput(text);
        } catch (error) {
          expect(error).toBeInstanceOf(GeminiHookInputError);
        }
      }),
    );
  });
});
