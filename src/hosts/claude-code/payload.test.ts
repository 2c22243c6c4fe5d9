import { describe, expect, it } from "vitest";
import { HookInputError, parseHookInput } from "./payload.js";

const base = { session_id: "s-1", transcript_path: "/t.jsonl", cwd: "/p" };
const parse = (value: unknown) => parseHookInput(JSON.stringify(value));

describe("parseHookInput", () => {
  it("reads a Stop event with its background work and final message", () => {
    const event = parse({
      ...base,
      hook_event_name: "Stop",
      stop_hook_active: true,
      last_assistant_message: "done?",
      background_tasks: [{ id: "b1", status: "running" }],
      session_crons: [],
      permission_mode: "plan",
    });
    expect(event).toEqual({
      kind: "Stop",
      sessionId: "s-1",
      transcriptPath: "/t.jsonl",
      cwd: "/p",
      agentId: null,
      stopHookActive: true,
      lastAssistantMessage: "done?",
      backgroundTasks: [{ id: "b1", status: "running" }],
      sessionCrons: [],
      permissionMode: "plan",
    });
  });

  it("defaults the optional Stop fields an older host leaves out", () => {
    const event = parse({ session_id: "s", hook_event_name: "Stop" });
    expect(event).toMatchObject({
      kind: "Stop",
      stopHookActive: false,
      lastAssistantMessage: null,
      backgroundTasks: [],
      transcriptPath: null,
    });
  });

  it("keeps the agent id of events from inside a subagent", () => {
    const event = parse({
      ...base,
      hook_event_name: "PostToolUse",
      agent_id: "a1",
      tool_name: "TodoWrite",
      tool_input: { todos: [] },
      tool_response: {},
    });
    expect(event).toMatchObject({ kind: "PostToolUse", agentId: "a1", toolName: "TodoWrite" });
  });

  it("reads UserPromptSubmit, SessionStart and StopFailure", () => {
    expect(
      parse({ ...base, hook_event_name: "UserPromptSubmit", prompt: "go", source: "sdk" }),
    ).toMatchObject({ kind: "UserPromptSubmit", prompt: "go", source: "sdk" });
    expect(parse({ ...base, hook_event_name: "SessionStart", source: "resume" })).toMatchObject({
      kind: "SessionStart",
      source: "resume",
    });
    expect(
      parse({
        ...base,
        hook_event_name: "StopFailure",
        error: "server_error",
        last_assistant_message: "API Error: 500",
      }),
    ).toMatchObject({ kind: "StopFailure", error: "server_error", errorDetails: null });
  });

  it("parses unknown events as `other` without requiring anything else", () => {
    expect(parse({ hook_event_name: "Notification" })).toEqual({
      kind: "other",
      name: "Notification",
    });
  });

  it.each([
    ["not JSON", "{", /not JSON/],
    ["an array", "[]", /must be a JSON object, got an array/],
    [
      "no event name",
      JSON.stringify({ session_id: "s" }),
      /hook_event_name must be a non-empty string/,
    ],
    [
      "no session id",
      JSON.stringify({ hook_event_name: "Stop" }),
      /session_id must be a non-empty string, got undefined/,
    ],
    [
      "a numeric final message",
      JSON.stringify({ ...base, hook_event_name: "Stop", last_assistant_message: 3 }),
      /last_assistant_message must be a string, got number/,
    ],
    [
      "background tasks that are not a list",
      JSON.stringify({ ...base, hook_event_name: "Stop", background_tasks: "x" }),
      /background_tasks must be an array/,
    ],
    [
      "a prompt that is not text",
      JSON.stringify({ ...base, hook_event_name: "UserPromptSubmit", prompt: null }),
      /prompt must be a string, got null/,
    ],
    [
      "a string flag",
      JSON.stringify({ ...base, hook_event_name: "Stop", stop_hook_active: "true" }),
      /stop_hook_active must be a boolean/,
    ],
  ])("names the field when given %s", (_label, text, message) => {
    expect(() => parseHookInput(text)).toThrow(HookInputError);
    expect(() => parseHookInput(text)).toThrow(message);
  });
});
