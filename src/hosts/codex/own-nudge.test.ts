import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PRESET_NAMES } from "../../core/engine/presets.js";
import type { PresetName } from "../../core/types.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { runCodexHookText } from "./handler.js";
import { isOwnNudge } from "./own-nudge.js";
import { CLOSE_INSTRUCTION } from "./plan.js";

const wrap = (text: string) =>
  `<hook_prompt hook_run_id="stop:0:/c.toml:0:0">${text}</hook_prompt>`;

describe("isOwnNudge", () => {
  it("recognises our nudge in Codex's hook prompt wrapper, escaped or not", () => {
    const nudge = `Open steps:\n- step 2\n${CLOSE_INSTRUCTION}`;
    expect(isOwnNudge(wrap(nudge))).toBe(true);
    expect(isOwnNudge(wrap(nudge.replaceAll('"', "&quot;")))).toBe(true);
  });

  it("calls everything else the user's: plain text, our words unwrapped, another hook's prompt", () => {
    expect(isOwnNudge("Stop. Inspect the broken config first.")).toBe(false);
    expect(isOwnNudge(CLOSE_INSTRUCTION)).toBe(false);
    expect(isOwnNudge(wrap("Run the linter before you stop."))).toBe(false);
    expect(isOwnNudge(`<hook_prompt>${CLOSE_INSTRUCTION}`)).toBe(false);
    expect(isOwnNudge(`please ${wrap(CLOSE_INSTRUCTION)}`)).toBe(false);
  });

  it("never calls a prompt without the wrapper ours", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (before, after) => {
        const prompt = `${before}${CLOSE_INSTRUCTION}${after}`;
        fc.pre(!prompt.trimStart().startsWith("<hook_prompt"));
        expect(isOwnNudge(prompt)).toBe(false);
      }),
    );
  });

  it("recognises the nudge every preset's Stop hook actually blocks with", async () => {
    for (const preset of PRESET_NAMES as PresetName[]) {
      const store = new MemoryStore();
      const send = (event: Record<string, unknown>) =>
        runCodexHookText(
          JSON.stringify({ session_id: "s-1", turn_id: "t-1", cwd: "/p", ...event }),
          { store, preset },
        );
      await send({ hook_event_name: "UserPromptSubmit", prompt: "go" });
      await send({
        hook_event_name: "PostToolUse",
        tool_name: "update_plan",
        tool_input: { plan: [{ step: "a", status: "pending" }] },
      });
      const stop = await send({ hook_event_name: "Stop", stop_hook_active: false });
      const reason = (JSON.parse(stop.stdout) as { reason: string }).reason;
      expect(isOwnNudge(wrap(reason)), preset).toBe(true);
    }
  });
});
