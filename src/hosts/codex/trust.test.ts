import { describe, expect, it } from "vitest";
import { codexHookHash, codexHookKey } from "./trust.js";

describe("Codex hook trust", () => {
  // currentHash values `codex app-server` (0.169.0) listed for these hooks via hooks/list.
  it("hashes a hook as Codex does", () => {
    expect(codexHookHash({ event: "Stop", command: "cat > /tmp/cx1/stop.json", timeout: 30 })).toBe(
      "sha256:3898023fbeceb6e3fe6ceff702dc8d9046288b1a44cde3be7235d26b5bd3653a",
    );
    expect(
      codexHookHash({
        event: "PostToolUse",
        matcher: "update_plan",
        command: "cat >> /tmp/cx1/post.json",
      }),
    ).toBe("sha256:392365d6b2778ece3a9bdccdf277fb64d87fd3d5f55becae9267d6715596538f");
  });

  it("changes the hash with the command, the matcher and the timeout", () => {
    const base = { event: "Stop" as const, command: "a", timeout: 30 };
    const hash = codexHookHash(base);
    expect(codexHookHash({ ...base, command: "b" })).not.toBe(hash);
    expect(codexHookHash({ ...base, timeout: 31 })).not.toBe(hash);
    expect(codexHookHash({ ...base, matcher: "x" })).not.toBe(hash);
  });

  it("keys a hook by file, event label and position", () => {
    expect(codexHookKey("/h/.codex/config.toml", "UserPromptSubmit", 2)).toBe(
      "/h/.codex/config.toml:user_prompt_submit:2:0",
    );
  });
});
