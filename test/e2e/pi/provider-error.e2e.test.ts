import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureHost, hostBin } from "../support/host-cache.js";
import {
  errorReply,
  type ScriptedReply,
  textReply,
  toolCallReply,
} from "../support/openai-server.js";
import {
  createPiWorld,
  lastUserMessage,
  messageText,
  PI_1X,
  type PiWorld,
  piVersion,
} from "./pi-world.js";

/**
 * pi's own retry of a failed model call, on both pinned lines: the extension
 * must not park a run that pi's retry recovers, and must park once when pi
 * gives up. pi 1.x needs Node 22, installed from npm's `node` package.
 */
const HOSTS = [
  { pkg: "@mariozechner/pi-coding-agent", version: "0.73.1", node: null, args: [] },
  { ...PI_1X, args: ["--approve"] },
] as const;

const init = (...items: string[]) =>
  toolCallReply("todo_write", { ops: [{ op: "init", list: [{ phase: "Work", items }] }] });
const done = (task: string) => toolCallReply("todo_write", { ops: [{ op: "done", task }] });

let world: PiWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe.each(HOSTS)("$pkg $version: provider errors", (host) => {
  const open = async () => {
    const bin = hostBin(ensureHost(host.pkg, host.version), "pi");
    const pathPrefix =
      host.node === null ? [] : [dirname(hostBin(ensureHost("node", host.node), "node"))];
    expect(await piVersion(bin, pathPrefix)).toContain(host.version);
    const w = await createPiWorld(bin, { pathPrefix, args: [...host.args] });
    // pi's own agent-level retry, quickly; the provider SDK's retries off, so
    // each scripted error reaches pi exactly as a user's provider would send it.
    writeFileSync(
      join(w.agentDir, "settings.json"),
      JSON.stringify({ retry: { baseDelayMs: 100, provider: { maxRetries: 0 } } }),
    );
    return w;
  };

  const transient: [string, ScriptedReply][] = [
    ["a 500", errorReply(500, "Internal server error", "server_error")],
    ["a 429", errorReply(429, "Rate limit reached for requests", "rate_limit_exceeded")],
    ["an overloaded 503", errorReply(503, "The server is overloaded", "server_is_overloaded")],
  ];

  it.each(transient)(
    "%s once: pi's retry recovers and the run is still nudged",
    async (_label, error) => {
      world = await open();
      world.server.script([
        init("Parse the input"),
        error, // pi retries this call itself
        textReply("I have a plan."), // an early stop with the task open: nudged
        done("Parse the input"),
        textReply("Everything is done."),
      ]);
      const run = await world.print("Build the converter.");
      expect(run.stderr).not.toContain("todo-continuation:");
      expect(run.stdout.trim()).toBe("Everything is done.");
      const requests = world.server.chatRequests();
      expect(requests).toHaveLength(5);
      expect(messageText(lastUserMessage(requests[3]!))).toContain("Parse the input");
      const store = world.store();
      const scope = await world.onlyScope();
      const log = await store.readLog(scope);
      expect(log.map((e) => `${e.action}:${e.reason ?? ""}`)).toEqual([
        "inject:",
        "skip:no-incomplete-todos",
      ]);
      expect((await store.read(scope)).state.parked).toBeNull();
    },
  );

  it("a permanent error parks once, and pi does not retry it", async () => {
    world = await open();
    world.server.script([
      init("Parse the input"),
      errorReply(401, "Incorrect API key provided", "invalid_api_key"),
    ]);
    await world.print("Build the converter.");
    expect(world.server.chatRequests()).toHaveLength(2);
    const store = world.store();
    const scope = await world.onlyScope();
    const log = await store.readLog(scope);
    expect(log.map((e) => `${e.action}:${e.reason ?? ""}`)).toEqual(["skip:provider-error"]);
    const state = (await store.read(scope)).state;
    expect(state.parked).toBe("provider-error");
    expect(state.lastOutcome).toMatchObject({ stopReason: "error", hostRetried: true });
  });

  it("a transient error that outlasts pi's retries parks once, as retries spent", async () => {
    world = await open();
    const overloaded = errorReply(503, "The server is overloaded", "server_is_overloaded");
    world.server.script([init("Parse the input"), overloaded, overloaded, overloaded, overloaded]);
    await world.print("Build the converter.");
    // The first call, then pi's three retries (its default retry.maxRetries).
    expect(world.server.chatRequests()).toHaveLength(5);
    const store = world.store();
    const scope = await world.onlyScope();
    const log = await store.readLog(scope);
    expect(log.map((e) => `${e.action}:${e.reason ?? ""}`)).toEqual(["skip:retries-exhausted"]);
    expect((await store.read(scope)).state.parked).toBe("retries-exhausted");
  });
});
