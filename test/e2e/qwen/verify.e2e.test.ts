import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findProjectConfig } from "../../../src/config/load.js";
import { trust } from "../../../src/config/trust.js";
import {
  lastUserMessage,
  messageText,
  textReply,
  toolCallReply,
} from "../support/openai-server.js";
import { type Project, qwenSuite, readSession, runQwen, todoWrite } from "./harness.js";

const suite = qwenSuite();

function trustProject(project: Project): void {
  const loaded = findProjectConfig(project.dir, project.home);
  if (loaded === null) throw new Error("no project config");
  trust(loaded, { env: { HOME: project.home }, home: project.home, now: Date.now() });
}

const CHECK = "test -f done.txt || { echo 'done.txt is missing'; exit 4; }";

describe("Qwen Code with a project verify", () => {
  it("nudges a false finish with the failing check, then lets the stop pass as verified", async () => {
    const model = await suite.serve([
      todoWrite(["Create done.txt", "completed"]),
      textReply("Everything is done."),
      toolCallReply("run_shell_command", { command: "echo ok > done.txt", is_background: false }),
      textReply("Created done.txt."),
    ]);
    const project = suite.project({ config: { verify: { command: CHECK, timeoutMs: 20_000 } } });
    expect(project.report).toContain("Stop hook timeout: 81 s, covering verify.timeoutMs 20000");
    const settings = JSON.parse(readFileSync(join(project.dir, ".qwen", "settings.json"), "utf8"));
    expect(settings.hooks.Stop[0].hooks[0].timeout).toBe(81);
    trustProject(project);
    const run = await runQwen(project, model, suite.trap(), { prompt: "Create done.txt" });
    expect(run.code, run.stderr).toBe(0);
    const requests = model.chatRequests();
    expect(requests).toHaveLength(4);
    const nudge = messageText(lastUserMessage(requests[2] as (typeof requests)[number]));
    expect(nudge).toContain("done.txt is missing");
    expect(nudge).toContain("exit");
    expect(existsSync(join(project.dir, "done.txt"))).toBe(true);
    const { snapshot, log } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "verified"]);
    expect(snapshot.state.verify?.last).toMatchObject({ status: "passed", exitCode: 0 });
  });
});
