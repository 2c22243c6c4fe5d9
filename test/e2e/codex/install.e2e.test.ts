import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callReply, hookPrompts, textReply } from "../support/responses-server.js";
import { bytes, type CodexWorld, codexWorld, killCodex } from "./codex-world.js";

const worlds: CodexWorld[] = [];
afterEach(async () => {
  killCodex();
  await Promise.all(worlds.splice(0).map((w) => w.close()));
});

const EVENTS = ["interrupt", "postToolUse", "stop", "userPromptSubmit"];

describe("install codex against the real Codex CLI", () => {
  it("is idempotent, trusted by Codex itself, rewrites trust with the command, and uninstalls cleanly", async () => {
    const replies = [
      callReply("update_plan", { plan: [{ step: "only step", status: "pending" }] }),
      textReply("Stopping early."),
    ];
    const w = await codexWorld((_r, i) => replies[i] ?? textReply("Still stopping."));
    worlds.push(w);
    const projectConfig = join(w.project, ".codex", "config.toml");
    const before = { project: bytes(projectConfig), user: bytes(w.userConfig) };
    expect(w.cli("install", "codex", "--project")).toContain("nothing changed");
    expect(bytes(projectConfig)).toBe(before.project);
    expect(bytes(w.userConfig)).toBe(before.user);

    const listed = (await w.hooksList()).filter((h) => h.key.startsWith(projectConfig));
    expect(listed.map((h) => h.eventName).sort()).toEqual(EVENTS);
    expect(listed.every((h) => h.trustStatus === "trusted")).toBe(true);

    // Without any bypass flag, the hooks run: the early stop is nudged.
    const run = await w.exec("Do the step.");
    expect(run.code).toBe(0);
    expect(w.server.requests.flatMap(hookPrompts).length).toBeGreaterThan(0);

    // A new command (here: another preset) rewrites hooks and trust together.
    w.cli("install", "codex", "--project", "--preset", "omo");
    const moved = (await w.hooksList()).filter((h) => h.key.startsWith(projectConfig));
    expect(
      moved.every((h) => h.trustStatus === "trusted" && h.command.includes("--preset omo")),
    ).toBe(true);

    w.cli("uninstall", "codex", "--project");
    const after = await w.hooksList();
    expect(after.filter((h) => h.key.startsWith(projectConfig))).toEqual([]);
    expect(bytes(w.userConfig)).not.toContain("todo-continuation");
    expect(bytes(w.userConfig)).not.toContain("hooks.state");
    expect(w.outbound).toEqual([]);
  });
});
