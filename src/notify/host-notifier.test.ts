import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NOTIFY_EVENTS, type Notification } from "../core/notify/events.js";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope } from "../core/types.js";
import { createHostNotifier } from "./host-notifier.js";
import { notifyLogPath } from "./log.js";
import { startReceiver } from "./test-support/receiver.js";

const scope = resolveScope({ kind: "session", host: "opencode", sessionId: "h1" }) as Scope;
const scratch = mkdtempSync(join(tmpdir(), "tc-host-notifier-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const outOfBudget: Notification = {
  event: "out-of-budget",
  reason: "max-auto-turns",
  limit: { reason: "max-auto-turns", name: "maxAutoTurns", max: 1, used: 1 },
  episodeId: "ep-1",
  counts: { open: 1, blocked: 0, completed: 0, cancelled: 0, total: 1 },
  episode: null,
  verification: null,
  at: Date.now(),
};

describe("createHostNotifier (long-lived hosts)", () => {
  it("is null when the project config has no notify", () => {
    for (const settings of [null, undefined]) {
      const notifier = createHostNotifier({
        settings,
        host: "opencode",
        projectDir: scratch,
        storeRoot: scratch,
        env: process.env,
      });
      expect(notifier).toBeNull();
    }
  });

  it("delivers in this process and logs to the store folder's notify log", async () => {
    const receiver = await startReceiver();
    const storeRoot = join(scratch, "store");
    try {
      const notifier = createHostNotifier({
        settings: {
          command: null,
          webhook: receiver.url,
          events: [...NOTIFY_EVENTS],
          timeoutMs: 5_000,
        },
        host: "pi",
        projectDir: scratch,
        storeRoot,
        env: process.env,
      });
      if (notifier === null) throw new Error("expected a notifier");
      notifier.send(scope, [outOfBudget]);
      // In-process: settled() waits for the delivery itself, so it has arrived.
      await notifier.settled();
      expect(receiver.received).toHaveLength(1);
      expect(JSON.parse(receiver.received[0]?.body ?? "")).toMatchObject({
        host: "pi",
        projectDir: scratch,
      });
      expect(readFileSync(notifyLogPath(storeRoot), "utf8")).toContain('"ok":true');
    } finally {
      await receiver.close();
    }
  });
});
