import { describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope } from "../core/types.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { createRuntimeNotifier } from "./runtime-notifier.js";
import { startReceiver, waitFor } from "./test-support/receiver.js";

const scope = resolveScope({ kind: "session", host: "ai-sdk", sessionId: "r1" }) as Scope;

describe("createRuntimeNotifier (a program's own runtime)", () => {
  it("delivers one out-of-budget to a real receiver when the runtime's budget runs out", async () => {
    const receiver = await startReceiver();
    try {
      const notify = createRuntimeNotifier({
        webhook: receiver.url,
        events: ["out-of-budget"],
        host: "my-agent",
        projectDir: "/work/app",
      });
      const runtime = new ContinuationRuntime({
        store: new MemoryStore(),
        limits: { maxAutoTurns: 1 },
        notify,
      });
      await runtime.turnStarted(scope, { real: true });
      await runtime.setTodos(scope, [{ content: "Write the parser", status: "pending" }]);
      const deliver = () => undefined;
      for (let turn = 1; turn <= 4; turn++) {
        await runtime.turnEnded(scope, {
          turnId: `t${turn}`,
          stopReason: "stop",
          injected: turn > 1,
        });
        await runtime.runIdle(scope, { deliver });
      }
      await notify.settled();
      await waitFor(() => receiver.received.length >= 1);
      expect(receiver.received).toHaveLength(1);
      const payload = JSON.parse(receiver.received[0]?.body ?? "{}");
      expect(payload).toMatchObject({
        event: "out-of-budget",
        host: "my-agent",
        projectDir: "/work/app",
      });
      expect(receiver.received[0]?.headers["content-type"]).toMatch(/^application\/json/);
    } finally {
      await receiver.close();
    }
  });

  it("refuses bad settings with the validator's message, naming the field", () => {
    expect(() => createRuntimeNotifier({ webhook: "ftp://example.test/" })).toThrow(
      /notify\.webhook must be an http:\/\/ or https:\/\/ URL/,
    );
    expect(() => createRuntimeNotifier({})).toThrow(/notify needs a command or a webhook/);
    expect(() =>
      createRuntimeNotifier({ webhook: "http://127.0.0.1:1/", events: ["soon" as never] }),
    ).toThrow(/notify\.events/);
  });
});
