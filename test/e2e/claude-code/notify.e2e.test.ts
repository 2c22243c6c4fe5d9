import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findProjectConfig } from "../../../src/config/load.js";
import { trust } from "../../../src/config/trust.js";
import { startReceiver, waitFor } from "../../../src/notify/test-support/receiver.js";
import { reply, text, toolUse } from "../support/anthropic-server.js";
import { claudeSuite, hookResponses, type Project, readSession, runClaude } from "./harness.js";

const suite = claudeSuite();

const todoWrite = (...items: [string, "pending" | "in_progress" | "completed"][]) =>
  reply(
    toolUse("TodoWrite", {
      todos: items.map(([content, status]) => ({ content, status, activeForm: content })),
    }),
  );

function trustProject(project: Project): void {
  const loaded = findProjectConfig(project.dir, project.home);
  if (loaded === null) throw new Error("no project config");
  trust(loaded, { env: { HOME: project.home }, home: project.home, now: Date.now() });
}

describe("Claude Code notifications", () => {
  it("a run out of budget delivers exactly one out-of-budget to a local HTTP server", async () => {
    const receiver = await startReceiver();
    try {
      const model = await suite.serve([
        todoWrite(["Parse the config", "in_progress"], ["Write the tests", "pending"]),
        reply(text("Pausing here.")),
        todoWrite(["Parse the config", "completed"], ["Write the tests", "in_progress"]),
        reply(text("Pausing again.")),
      ]);
      const project = suite.project({
        config: {
          limits: { maxAutoTurns: 1 },
          notify: { webhook: receiver.url, timeoutMs: 3_000 },
        },
      });
      trustProject(project);
      const run = await runClaude(project, model, suite.trap(), {
        prompt: "Do the work",
        tools: "todo-write",
      });
      expect(run.code, hookResponses(run)).toBe(0);
      expect(model.turns()).toHaveLength(4);
      const { log, snapshot } = await readSession(project, run.sessionId as string);
      expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "max-auto-turns"]);
      expect(log.at(-1)?.note).toBe("notified: out-of-budget");
      expect(snapshot.state.notified?.events).toEqual(["out-of-budget"]);
      // Delivered by the detached process after the hook answered.
      await waitFor(() => receiver.received.length > 0, 15_000);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(receiver.received).toHaveLength(1);
      const payload = JSON.parse(receiver.received[0]?.body ?? "");
      expect(payload).toMatchObject({
        event: "out-of-budget",
        reason: "max-auto-turns",
        host: "claude-code",
        limit: { name: "maxAutoTurns", max: 1, used: 1 },
        counts: { open: 1, completed: 1, total: 2 },
        scope: { key: expect.stringContaining(run.sessionId as string) },
      });
      const notifyLog = readFileSync(
        join(project.dir, ".claude", "todo-continuation", "notify.log"),
        "utf8",
      );
      expect(notifyLog).toContain('"ok":true');
    } finally {
      await receiver.close();
    }
  });

  it("an untrusted config sends nothing", async () => {
    const receiver = await startReceiver();
    try {
      const model = await suite.serve([
        todoWrite(["Parse the config", "in_progress"]),
        reply(text("Pausing here.")),
        reply(text("Pausing again.")),
      ]);
      const project = suite.project({
        config: { limits: { maxAutoTurns: 1 }, notify: { webhook: receiver.url } },
      });
      const run = await runClaude(project, model, suite.trap(), {
        prompt: "Do the work",
        tools: "todo-write",
      });
      expect(run.code, hookResponses(run)).toBe(0);
      const { log } = await readSession(project, run.sessionId as string);
      expect(log.at(-1)?.reason).toBe("max-auto-turns");
      await new Promise((r) => setTimeout(r, 1_500));
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
