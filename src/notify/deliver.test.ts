import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { NotifySettings } from "../config/notify.js";
import { deliverPayload, postWebhook, runNotifyCommand } from "./deliver.js";
import { samplePayload } from "./payload.js";
import { startReceiver } from "./test-support/receiver.js";

const scratch = mkdtempSync(join(tmpdir(), "tc-notify-deliver-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const payload = samplePayload(
  "out-of-budget",
  { scope: { key: "session/x", label: "x" }, host: "test", projectDir: scratch, version: "0.0.0" },
  Date.UTC(2026, 0, 2),
);

function settings(overrides: Partial<NotifySettings>): NotifySettings {
  return { command: null, webhook: null, events: ["done"], timeoutMs: 5_000, ...overrides };
}

describe("webhook", () => {
  it("POSTs the payload as application/json to a real receiver", async () => {
    const receiver = await startReceiver();
    try {
      const result = await postWebhook(receiver.url, payload, { timeoutMs: 5_000 });
      expect(result).toMatchObject({ target: "webhook", ok: true, status: 204, error: null });
      expect(receiver.received).toHaveLength(1);
      const [got] = receiver.received;
      expect(got?.method).toBe("POST");
      expect(got?.headers["content-type"]).toBe("application/json");
      expect(JSON.parse(got?.body ?? "")).toEqual(payload);
    } finally {
      await receiver.close();
    }
  });

  it("a non-2xx answer is a failure naming the status; nothing is retried", async () => {
    const receiver = await startReceiver({ status: 500 });
    try {
      const result = await postWebhook(receiver.url, payload, { timeoutMs: 5_000 });
      expect(result).toMatchObject({ ok: false, status: 500, error: "HTTP 500" });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("gives up at the time limit", async () => {
    const receiver = await startReceiver({ delayMs: 3_000 });
    try {
      const started = Date.now();
      const result = await postWebhook(receiver.url, payload, { timeoutMs: 200 });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(result).toMatchObject({ ok: false, error: "timed out after 200 ms" });
    } finally {
      await receiver.close();
    }
  });

  it("a refused connection is a failure, not a throw", async () => {
    const receiver = await startReceiver();
    const url = receiver.url;
    await receiver.close();
    const result = await postWebhook(url, payload, { timeoutMs: 2_000 });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/ECONNREFUSED|fetch failed|connect/);
  });
});

describe("command", () => {
  it("a real shell command gets the payload on stdin and the event in its environment", async () => {
    const out = join(scratch, "shell.json");
    const result = await runNotifyCommand(
      `cat > ${out}; echo "$TODO_CONTINUATION_EVENT $TODO_CONTINUATION_SCOPE" >> ${out}.env`,
      payload,
      { timeoutMs: 5_000, env: process.env },
    );
    expect(result).toMatchObject({ target: "command", ok: true, status: 0 });
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(payload);
    expect(readFileSync(`${out}.env`, "utf8")).toBe("out-of-budget session/x\n");
  });

  it("an argument list runs without a shell", async () => {
    const out = join(scratch, "argv.json");
    const script = `require("fs").writeFileSync(${JSON.stringify(out)}, require("fs").readFileSync(0))`;
    const result = await runNotifyCommand([process.execPath, "-e", script], payload, {
      timeoutMs: 5_000,
      env: process.env,
    });
    expect(result.ok).toBe(true);
    expect(JSON.parse(readFileSync(out, "utf8")).event).toBe("out-of-budget");
  });

  it("a failing command reports its exit code and output; a hung one is killed at the limit", async () => {
    const failed = await runNotifyCommand("echo nope >&2; exit 3", payload, {
      timeoutMs: 5_000,
      env: process.env,
    });
    expect(failed).toMatchObject({ ok: false, status: 3, error: "exit 3: nope" });
    const started = Date.now();
    const hung = await runNotifyCommand("sleep 30", payload, { timeoutMs: 200, env: process.env });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(hung).toMatchObject({ ok: false, error: "timed out after 200 ms" });
  });

  it("a program that does not exist is a failure, not a throw", async () => {
    const result = await runNotifyCommand(["/nonexistent/notifier"], payload, {
      timeoutMs: 2_000,
      env: process.env,
    });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/could not start|ENOENT/);
  });
});

describe("deliverPayload", () => {
  it("sends to the command and the webhook side by side", async () => {
    const receiver = await startReceiver();
    const out = join(scratch, "both.json");
    try {
      const results = await deliverPayload(
        payload,
        settings({ command: `cat > ${out}`, webhook: receiver.url }),
        process.env,
      );
      expect(results.map((r) => [r.target, r.ok])).toEqual([
        ["command", true],
        ["webhook", true],
      ]);
      expect(receiver.received).toHaveLength(1);
      expect(JSON.parse(readFileSync(out, "utf8")).scope.key).toBe("session/x");
    } finally {
      await receiver.close();
    }
  });
});
