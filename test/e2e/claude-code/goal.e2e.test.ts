import { describe, expect, it } from "vitest";
import {
  type MessagesBody,
  reply,
  type ScriptedReply,
  startAnthropicServer,
  text,
  toolUse,
} from "../support/anthropic-server.js";
import {
  answersNudge,
  claudeSuite,
  hookResponses,
  mentionsNudge,
  readSession,
  runClaude,
} from "./harness.js";

const suite = claudeSuite();

const CONDITION = "the parser and the printer are both ported";

/** The goal's Stop hook asks the model whether the condition holds, without tools. */
function isGoalCheck(body: MessagesBody): boolean {
  return (
    !(Array.isArray(body.tools) && body.tools.length > 0) &&
    JSON.stringify(body.messages.at(-1) ?? "").includes("stopping condition")
  );
}

describe("a /goal of Claude Code's own", () => {
  it("drives the session alone: our hook steps aside while it is active", async () => {
    const checks: boolean[] = [];
    const turns: MessagesBody[] = [];
    const server = await startAnthropicServer({
      isTurn: () => true,
      script: ({ body }): ScriptedReply => {
        if (isGoalCheck(body)) {
          const met = checks.length >= 2;
          checks.push(met);
          // A real check takes seconds; our hook reads the transcript meanwhile.
          const verdict = met ? { ok: true, reason: "done" } : { ok: false, reason: "not yet" };
          return { ...reply(text(JSON.stringify(verdict))), delayMs: 2000 };
        }
        if (!(Array.isArray(body.tools) && body.tools.length > 0)) return reply(text("Summary"));
        turns.push(body);
        if (turns.length === 1) {
          return reply(
            toolUse("TodoWrite", {
              todos: [
                { content: "Port the parser", status: "in_progress", activeForm: "Porting" },
                { content: "Port the printer", status: "pending", activeForm: "Porting" },
              ],
            }),
          );
        }
        return reply(text(`Stopping (${turns.length}).`));
      },
    });
    try {
      const project = suite.project();
      const run = await runClaude(project, server, suite.trap(), {
        prompt: `/goal ${CONDITION}`,
        tools: "todo-write",
      });
      expect(run.code, hookResponses(run)).toBe(0);
      // The goal blocked twice and was met at its third check.
      expect(checks).toEqual([false, false, true]);
      // No request carried a nudge of ours: only the goal's own continuations.
      expect(turns.map((t) => mentionsNudge(t, "todo-write"))).toEqual(turns.map(() => false));
      expect(turns.some((t) => answersNudge(t, "todo-write"))).toBe(false);
      const { snapshot, log } = await readSession(project, run.sessionId as string);
      expect(log.map((e) => e.reason ?? e.action)).toEqual([
        "host-goal-active",
        "host-goal-active",
        "host-goal-active",
      ]);
      // After the goal's blocks Claude Code said stop_hook_active; the turns were not ours.
      expect(snapshot.state.lastOutcome?.injected).toBe(false);
    } finally {
      await server.close();
    }
  });
});
