import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIG_FILE } from "../../config/load.js";
import { type TestProject, testProject } from "../../config/test-support/project.js";
import { resolveScope } from "../../core/scope/scope.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { OpenCodeContinuation } from "./continuation.js";
import { type OpenCodePluginOptions, parseOpenCodeOptions } from "./options.js";
import { type BusEvent, events, FakeOpenCode, turnEvents } from "./test-support/fake-client.js";

const DONE = [
  { content: "write the parser", status: "completed", priority: "high" },
  { content: "add tests", status: "completed", priority: "medium" },
];

let project: TestProject;
let repo: string;
let env: Record<string, string | undefined>;
const live: OpenCodeContinuation[] = [];

beforeEach(() => {
  project = testProject("tc-opencode-verify-");
  ({ repo, env } = project);
});
afterEach(async () => {
  for (const c of live.splice(0)) await c.dispose();
  project.cleanup();
});

const config = (content: unknown, trusted = true) => project.config(content, trusted);
const counting = (check?: string) => project.counting(check);
const runs = () => project.runs();

async function setup(options: OpenCodePluginOptions = {}) {
  const fake = new FakeOpenCode();
  const store = new MemoryStore();
  const merged = { debounceMs: 0, ...options };
  const continuation = new OpenCodeContinuation({
    client: fake.client(),
    settings: parseOpenCodeOptions(merged),
    store,
    project: {
      directory: repo,
      options: merged,
      cacheDir: join(project.root, "cache"),
      env,
      home: project.home,
    },
  });
  live.push(continuation);
  await continuation.refreshProject();
  const send = async (...list: BusEvent[]) => {
    for (const event of list) void continuation.handle(event);
    await continuation.settle();
  };
  const scope = (id: string) => resolveScope({ kind: "session", host: "opencode", sessionId: id })!;
  const log = async (id: string) => store.readLog(scope(id));
  const decisions = async (id: string) =>
    (await log(id)).map((e) => (e.action === "skip" ? `skip:${e.reason}` : e.action));
  return { fake, store, continuation, send, log, decisions };
}

/** Our last nudge coming back as a user message, then the model's reply and the idles. */
function nudgeReply(sessionID: string, fake: FakeOpenCode) {
  const part = fake.prompts.at(-1)!.parts[0]!;
  return turnEvents(sessionID, {
    userPart: {
      text: part.text,
      synthetic: true,
      ...(part.metadata ? { metadata: part.metadata } : {}),
    },
  }).events;
}

describe("OpenCode with a project's check", () => {
  it("a done list with a failing check is nudged with the failure; once fixed the next idle is verified", async () => {
    config({ verify: { command: counting() } });
    const { fake, send, decisions, log } = await setup();
    fake.todos.set("s1", DONE);
    await send(...turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(1);
    const text = fake.prompts[0]?.parts[0]?.text ?? "";
    expect(text).toContain("the project's check fails");
    expect(text).toContain("exit code 1");
    expect(text).toContain("DONE is missing");
    expect(await decisions("s1")).toEqual(["inject"]);
    // The agent creates the file and stops again.
    writeFileSync(join(repo, "DONE"), "yes\n");
    await send(...nudgeReply("s1", fake));
    expect(await decisions("s1")).toEqual(["inject", "skip:verified"]);
    expect((await log("s1")).at(-1)?.note).toMatch(/^verified in /);
    expect(fake.prompts).toHaveLength(1);
    expect(runs()).toBe(2);
  });

  it("an untrusted check never runs: the user is told once what to run, and a trust takes effect without a restart", async () => {
    config({ verify: { command: counting("exit 1") } }, false);
    const { fake, send, decisions } = await setup();
    fake.todos.set("s1", DONE);
    await send(...turnEvents("s1").events);
    await send(...turnEvents("s1").events);
    expect(await decisions("s1")).toEqual(["skip:no-incomplete-todos", "skip:no-incomplete-todos"]);
    expect(runs()).toBe(0);
    const told = fake.toasts.filter((t) => t.message.includes("todo-continuation trust"));
    expect(told).toHaveLength(1);
    expect(fake.logs.filter((l) => l.message.includes("is not trusted"))).toHaveLength(1);

    // The user trusts the file from a terminal; the running plugin sees it at the next idle.
    config({ verify: { command: counting("exit 1") } }, true);
    await send(...turnEvents("s1").events);
    expect(runs()).toBe(1);
    expect(fake.prompts).toHaveLength(1);
  });

  it("an invalid config never nudges: each idle logs config-invalid with the message, told once", async () => {
    config({ limits: { maxAutoTurns: -1 } }, false);
    const { fake, send, log } = await setup();
    fake.todos.set("s1", [{ content: "open work", status: "pending", priority: "high" }]);
    await send(...turnEvents("s1").events);
    await send(...turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(0);
    const entries = await log("s1");
    expect(entries.map((e) => e.reason)).toEqual(["config-invalid", "config-invalid"]);
    expect(entries[0]?.note).toContain(CONFIG_FILE);
    expect(entries[0]?.note).toContain("limits.maxAutoTurns");
    const toasts = fake.toasts.filter((t) => t.message.includes("limits.maxAutoTurns"));
    expect(toasts).toHaveLength(1);

    // Fixed: nudges again, with the file's limits.
    config({ limits: { maxAutoTurns: 1 } }, false);
    await send(...turnEvents("s1").events);
    expect(fake.prompts).toHaveLength(1);
  });

  it("the file's preset and limits apply under the plugin's options, which win", async () => {
    config({ preset: "omo", limits: { maxAutoTurns: 1, stagnationLimit: 0 } }, false);
    const { continuation } = await setup({ limits: { maxAutoTurns: 5 }, countdownMs: 0 });
    expect(continuation.runtime.preset.name).toBe("omo");
    expect(continuation.runtime.limits.maxAutoTurns).toBe(5);
    expect(continuation.runtime.limits.stagnationLimit).toBe(0);
    const other = await setup({ preset: "typeclaw" });
    expect(other.continuation.runtime.preset.name).toBe("typeclaw");
  });

  it("a subagent's (child) session never runs the check", async () => {
    config({ verify: { command: counting("exit 1") } });
    const { fake, send, decisions } = await setup();
    fake.parents.set("child", "s1");
    fake.todos.set("child", DONE);
    await send(events.created("child", "s1"), ...turnEvents("child").events);
    expect(runs()).toBe(0);
    expect(fake.prompts).toHaveLength(0);
    expect(await decisions("child")).toEqual([]);
  });

  it("an excluded agent (plan) never runs the check", async () => {
    config({ verify: { command: counting("exit 1") } });
    const { fake, send, decisions } = await setup();
    fake.todos.set("s1", DONE);
    await send(...turnEvents("s1", { agent: "plan" }).events);
    expect(runs()).toBe(0);
    expect(await decisions("s1")).toEqual(["skip:no-incomplete-todos"]);
  });

  it("a slow check does not hold OpenCode's event loop: timers tick and other sessions are nudged meanwhile", async () => {
    config({ verify: { command: "sleep 2; exit 1", timeoutMs: 30_000 } });
    const { fake, continuation, decisions } = await setup();
    fake.todos.set("slow", DONE);
    fake.todos.set("other", [{ content: "open work", status: "pending", priority: "high" }]);
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 50);
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (const event of turnEvents("slow").events) void continuation.handle(event);
    // While the check sleeps, another session's idle is handled and nudged.
    await new Promise((r) => setTimeout(r, 300));
    for (const event of turnEvents("other").events) void continuation.handle(event);
    for (let i = 0; i < 100 && !fake.prompts.some((p) => p.sessionId === "other"); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const otherNudgedAt = performance.now() - started;
    await continuation.settle();
    const total = performance.now() - started;
    clearInterval(timer);
    const used = process.cpuUsage(cpu);
    const gaps = ticks.slice(1).map((t, i) => t - (ticks[i] as number));
    const worst = Math.max(...gaps);
    console.log(
      `opencode slow check: other session nudged after ${otherNudgedAt.toFixed(0)} ms, check done after ${total.toFixed(0)} ms; ${ticks.length} ticks of 50 ms, worst gap ${worst.toFixed(0)} ms; cpu ${((used.user + used.system) / 1000).toFixed(0)} ms`,
    );
    expect(fake.prompts.find((p) => p.sessionId === "other")).toBeDefined();
    // The other session was answered while the check still ran.
    expect(otherNudgedAt).toBeLessThan(total);
    expect(total).toBeGreaterThanOrEqual(2_000);
    expect(await decisions("slow")).toEqual(["inject"]);
    // The loop kept ticking through the 2 s sleep (a blocked loop shows one gap of ~2 s).
    expect(ticks.length).toBeGreaterThan(10);
    expect(worst).toBeLessThan(1_500);
  });
});
