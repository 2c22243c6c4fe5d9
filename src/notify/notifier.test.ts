import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NotifySettings } from "../config/notify.js";
import { NOTIFY_EVENTS } from "../core/notify/events.js";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope } from "../core/types.js";
import { ContinuationRuntime, type RuntimeNotify } from "../runtime/runtime.js";
import { transpileForChild } from "../store/file/test-support/transpile.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { createNotifier, type NotifierOptions } from "./notifier.js";
import { samplePayload } from "./payload.js";
import { startReceiver, waitFor } from "./test-support/receiver.js";

const scope = resolveScope({ kind: "session", host: "test", sessionId: "n1" }) as Scope;
const scratch = mkdtempSync(join(tmpdir(), "tc-notifier-"));
let child: { file: string; dir: string };
beforeAll(() => {
  child = transpileForChild(join(import.meta.dirname, "child.ts"));
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(child.dir, { recursive: true, force: true });
});

const schema = JSON.parse(
  readFileSync(new URL("../../schema/notify-payload.schema.json", import.meta.url), "utf8"),
) as object;
// ajv-formats is not a dependency: `time` is checked as ISO 8601 by the test itself.
const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
const validPayload = ajv.compile(schema);

function settings(overrides: Partial<NotifySettings>): NotifySettings {
  return {
    command: null,
    webhook: null,
    events: [...NOTIFY_EVENTS],
    timeoutMs: 5_000,
    ...overrides,
  };
}

function notifierFor(
  overrides: Partial<NotifySettings>,
  options: Pick<NotifierOptions, "projectDir" | "log" | "mode" | "childScript">,
) {
  return createNotifier({
    settings: settings(overrides),
    host: "test",
    env: process.env,
    ...options,
  });
}

/** A runtime whose budget is one nudge: the second stop runs out of it. */
async function outOfBudgetRun(notify: RuntimeNotify) {
  const store = new MemoryStore();
  const runtime = new ContinuationRuntime({ store, limits: { maxAutoTurns: 1 }, notify });
  await runtime.setTodos(scope, [{ content: "write the parser", status: "pending" }]);
  let turn = 0;
  const stop = () =>
    runtime.runIdle(scope, {
      trigger: "stop-hook",
      deliver: () => undefined,
      outcome: { turnId: `t${++turn}`, stopReason: "stop", injected: turn > 1 },
    });
  return { store, runtime, stop };
}

describe("the payload schema", () => {
  it("describes every sample payload", () => {
    const context = { scope: { key: "k", label: "l" }, host: "h", projectDir: null, version: "1" };
    for (const event of NOTIFY_EVENTS) {
      const ok = validPayload(samplePayload(event, context, Date.now()));
      expect(validPayload.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    }
  });
});

describe("the runtime with an in-process notifier", () => {
  it("delivers exactly one out-of-budget to a real receiver, and records it before sending", async () => {
    const receiver = await startReceiver();
    const log = join(scratch, "in-process.log");
    try {
      const notifier = notifierFor(
        { webhook: receiver.url },
        { projectDir: scratch, log, mode: "in-process" },
      );
      let recordedFirst = false;
      const { store, stop } = await outOfBudgetRun({
        events: notifier.events,
        send(s, notifications) {
          // Persist before deliver: the sent mark is already in the store.
          void store.read(s).then((snap) => {
            recordedFirst = snap.state.notified?.events.includes("out-of-budget") === true;
          });
          notifier.send(s, notifications);
        },
      });
      expect((await stop()).action).toBe("inject");
      expect(await stop()).toEqual({ action: "skip", reason: "max-auto-turns" });
      expect(await stop()).toEqual({ action: "skip", reason: "max-auto-turns" });
      await notifier.settled();
      expect(receiver.received).toHaveLength(1);
      const payload = JSON.parse(receiver.received[0]?.body ?? "");
      expect(validPayload(payload)).toBe(true);
      expect(new Date(payload.time).toISOString()).toBe(payload.time);
      expect(payload).toMatchObject({
        event: "out-of-budget",
        reason: "max-auto-turns",
        limit: { name: "maxAutoTurns", max: 1, used: 1 },
        host: "test",
        projectDir: scratch,
        scope: { key: scope.key },
        counts: { open: 1, total: 1 },
      });
      expect(recordedFirst).toBe(true);
      const entries = await store.readLog(scope);
      expect(entries.filter((e) => e.note?.includes("notified: out-of-budget"))).toHaveLength(1);
      expect(readFileSync(log, "utf8")).toContain('"ok":true');
    } finally {
      await receiver.close();
    }
  });

  it("events left out of the config are not sent", async () => {
    const receiver = await startReceiver();
    try {
      const notifier = notifierFor(
        { webhook: receiver.url, events: ["done"] },
        { projectDir: null, log: null, mode: "in-process" },
      );
      const { stop } = await outOfBudgetRun(notifier);
      await stop();
      await stop();
      await notifier.settled();
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it("a receiver that fails is logged, and the decision stands", async () => {
    const receiver = await startReceiver({ status: 503 });
    const log = join(scratch, "failing.log");
    try {
      const notifier = notifierFor(
        { webhook: receiver.url },
        { projectDir: null, log, mode: "in-process" },
      );
      const { stop } = await outOfBudgetRun(notifier);
      await stop();
      expect((await stop()).action).toBe("skip");
      await notifier.settled();
      const line = JSON.parse(readFileSync(log, "utf8").trim());
      expect(line).toMatchObject({
        event: "out-of-budget",
        ok: false,
        status: 503,
        error: "HTTP 503",
      });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});

describe("the runtime with a detached notifier (hook processes)", () => {
  it("a slow receiver does not hold the stop: the decision returns at once, delivery follows", async () => {
    const receiver = await startReceiver({ delayMs: 3_000 });
    const log = join(scratch, "detached.log");
    try {
      const notifier = notifierFor(
        { webhook: receiver.url },
        { projectDir: scratch, log, mode: "detached", childScript: child.file },
      );
      const { stop } = await outOfBudgetRun(notifier);
      await stop();
      expect((await stop()).action).toBe("skip");
      // The stop is decided before the receiver has answered: nothing waited for it.
      expect(receiver.answered()).toBe(0);
      await waitFor(() => receiver.received.length === 1);
      await waitFor(() => {
        try {
          return readFileSync(log, "utf8").includes('"ok":true');
        } catch {
          return false;
        }
      });
      expect(JSON.parse(receiver.received[0]?.body ?? "").event).toBe("out-of-budget");
      // The delivery process's job variable does not reach the receiver's side.
      expect(receiver.received[0]?.body).not.toContain("TODO_CONTINUATION_NOTIFY_JOB");
    } finally {
      await receiver.close();
    }
  });

  it("a real command writes the payload to a file from the detached process", async () => {
    const out = join(scratch, "from-command.json");
    const notifier = notifierFor(
      { command: `cat > ${out}.tmp && mv ${out}.tmp ${out}` },
      {
        projectDir: scratch,
        log: join(scratch, "command.log"),
        mode: "detached",
        childScript: child.file,
      },
    );
    const { stop } = await outOfBudgetRun(notifier);
    await stop();
    await stop();
    await waitFor(() => {
      try {
        readFileSync(out);
        return true;
      } catch {
        return false;
      }
    });
    const payload = JSON.parse(readFileSync(out, "utf8"));
    expect(validPayload(payload)).toBe(true);
    expect(payload.event).toBe("out-of-budget");
  });

  it("a missing delivery script is logged, never thrown", async () => {
    const log = join(scratch, "missing.log");
    const notifier = notifierFor(
      { command: "true" },
      { projectDir: null, log, mode: "detached", childScript: null },
    );
    const { stop } = await outOfBudgetRun(notifier);
    await stop();
    expect((await stop()).action).toBe("skip");
    expect(readFileSync(log, "utf8")).toContain("delivery script");
  });
});
