import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TestProject, testProject } from "../../config/test-support/project.js";
import { resolveScope } from "../../core/scope/index.js";
import type { Scope } from "../../core/types.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { NUDGE_MESSAGE_TYPE } from "./continuation.js";
import { createPiExtension, type PiExtensionOptions } from "./extension.js";
import type { PiMessage } from "./pi-api.js";
import { asQueued, assistant, FakePi } from "./test-support/fake-pi.js";

const SESSION = "pi-verify-1";
const scope = resolveScope({ kind: "session", host: "pi", sessionId: SESSION }) as Scope;
const init = (...items: string[]) => ({ ops: [{ op: "init", list: [{ phase: "Work", items }] }] });
const doneAll = (...tasks: string[]) => ({ ops: tasks.map((task) => ({ op: "done", task })) });

let project: TestProject;
let repo: string;
let env: Record<string, string | undefined>;

beforeEach(() => {
  project = testProject("tc-pi-verify-");
  ({ repo, env } = project);
});
afterEach(() => project.cleanup());

const config = (content: unknown, trusted = true) => project.config(content, trusted);
const counting = (check?: string) => project.counting(check);
const runs = () => project.runs();

async function start(options: PiExtensionOptions & { settles?: boolean } = {}) {
  const store = new MemoryStore();
  const { settles, ...rest } = options;
  const pi = new FakePi(SESSION, { settles: settles === true });
  pi.ctx.hasUI = true;
  createPiExtension({ store, env, cwd: repo, ...rest })(pi);
  await pi.emit("session_start", { reason: "startup" });
  return { pi, store };
}

async function modelCall(pi: FakePi, history: PiMessage[], reply: ReturnType<typeof assistant>) {
  const result = (await pi.emit("context", { messages: history })) as
    | { messages?: PiMessage[] }
    | undefined;
  const seen = result?.messages ?? history;
  const ended = pi.endMessage(reply);
  pi.emitSync("turn_end", { message: ended, toolResults: [] });
  return seen;
}

const reasons = async (store: MemoryStore) =>
  (await store.readLog(scope)).map((e) => (e.action === "skip" ? `skip:${e.reason}` : e.action));

describe("the pi extension with a project's check", () => {
  it("a done list with a failing check gets a nudge with the failure; once fixed the stop is verified", async () => {
    config({ verify: { command: counting() } });
    const { pi, store } = await start();
    await pi.emit("input", { text: "Do the work", source: "interactive" });
    await pi.callTool("todo_write", init("Parse", "Render"));
    await pi.callTool("todo_write", doneAll("Parse", "Render"));
    const history: PiMessage[] = [{ role: "user", content: "Do the work" }];
    await modelCall(pi, history, assistant("stop"));
    // Queued at once, before the check ran: the run must not end meanwhile.
    expect(pi.sent).toHaveLength(1);
    const queued = asQueued(pi.sent[0]!);
    // pi drains it and asks for context: the check's failure replaces the placeholder.
    const seen = await modelCall(pi, [...history, queued], assistant("stop"));
    const nudge = seen.at(-1) as { customType?: string; content?: string };
    expect(nudge.customType).toBe(NUDGE_MESSAGE_TYPE);
    expect(nudge.content).toContain("the project's check fails");
    expect(nudge.content).toContain("DONE is missing");
    expect(pi.aborted).toBe(0);
    expect(runs()).toBe(1);

    // That reply's stop queued another (the agent created the file meanwhile): the check passes,
    // so the queued message is withdrawn and the call aborted before the model is asked.
    writeFileSync(join(repo, "DONE"), "yes\n");
    expect(pi.sent).toHaveLength(2);
    const after = (await pi.emit("context", {
      messages: [...history, queued, asQueued(pi.sent[1]!)],
    })) as { messages: PiMessage[] };
    // Only the nudge answered before is left; the withdrawn one is gone.
    expect(
      after.messages.filter(
        (m) => (m as { customType?: string }).customType === NUDGE_MESSAGE_TYPE,
      ),
    ).toHaveLength(1);
    expect(pi.aborted).toBe(1);
    expect(await reasons(store)).toEqual(["inject", "skip:verified"]);
    expect((await store.readLog(scope)).at(-1)?.note).toMatch(/^verified in /);
    expect(runs()).toBe(2);
  });

  it("on pi 1.x the check runs at agent_before_settle: a failure is queued there and continues the run, a pass queues nothing", async () => {
    config({ verify: { command: counting() } });
    const { pi, store } = await start({ settles: true });
    await pi.emit("input", { text: "Do the work", source: "interactive" });
    await pi.callTool("todo_write", init("Parse"));
    await pi.callTool("todo_write", doneAll("Parse"));
    await modelCall(pi, [], assistant("stop"));
    // Nothing queued at turn_end: pi 1.x waits for the settle handlers.
    expect(pi.sent).toEqual([]);
    pi.emitSync("agent_end", { messages: [] });
    expect(await pi.emit("agent_before_settle", {})).toEqual({ continue: true });
    expect(pi.sent).toHaveLength(1);
    expect(pi.sent[0]?.message.content).toContain("DONE is missing");
    const seen = await modelCall(pi, [asQueued(pi.sent[0]!)], assistant("stop"));
    expect(JSON.stringify(seen.at(-1))).toContain("DONE is missing");
    writeFileSync(join(repo, "DONE"), "yes\n");
    expect(await pi.emit("agent_before_settle", {})).toBeUndefined();
    expect(pi.sent).toHaveLength(1);
    expect(pi.aborted).toBe(0);
    expect(await reasons(store)).toEqual(["inject", "skip:verified"]);
    // The nudge's turn was recorded as an injected one.
    expect((await store.read(scope)).state.lastOutcome?.injected).toBe(true);
  });

  it("an untrusted check never runs and nothing is queued; the user is told once; a trust applies without a restart", async () => {
    config({ verify: { command: counting("exit 1") } }, false);
    const { pi, store } = await start();
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A"));
    await pi.callTool("todo_write", doneAll("A"));
    await modelCall(pi, [], assistant("stop"));
    await pi.emit("input", { text: "again", source: "interactive" });
    await modelCall(pi, [], assistant("stop"));
    await pi.emit("context", { messages: [] });
    expect(pi.sent).toEqual([]);
    expect(runs()).toBe(0);
    expect(await reasons(store)).toEqual(["skip:no-incomplete-todos", "skip:no-incomplete-todos"]);
    expect(pi.notices.filter((n) => n.includes("todo-continuation trust"))).toHaveLength(1);

    config({ verify: { command: counting("exit 1") } }, true);
    await pi.emit("input", { text: "once more", source: "interactive" });
    await modelCall(pi, [], assistant("stop"));
    expect(pi.sent).toHaveLength(1);
    await pi.emit("context", { messages: [asQueued(pi.sent[0]!)] });
    expect(runs()).toBe(1);
  });

  it("an invalid config never nudges: each stop logs config-invalid with the message, shown once", async () => {
    config({ limits: { maxAutoTurns: "many" } }, false);
    const { pi, store } = await start();
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A", "B"));
    await modelCall(pi, [], assistant("stop"));
    await pi.emit("input", { text: "go on", source: "interactive" });
    await modelCall(pi, [], assistant("stop"));
    await pi.emit("context", { messages: [] });
    expect(pi.sent).toEqual([]);
    const log = await store.readLog(scope);
    expect(log.map((e) => e.reason)).toEqual(["config-invalid", "config-invalid"]);
    expect(log[0]?.note).toContain("limits.maxAutoTurns");
    expect(pi.notices.filter((n) => n.includes("limits.maxAutoTurns"))).toHaveLength(1);
  });

  it("the file's preset and limits apply; the extension's options win", async () => {
    config({ preset: "omo", limits: { maxAutoTurns: 1, stagnationLimit: 0 } }, false);
    const onDecision: NonNullable<PiExtensionOptions["onDecision"]> = () => {};
    const { pi, store } = await start({ limits: { maxAutoTurns: 4 }, onDecision });
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A"));
    await modelCall(pi, [], assistant("stop"));
    // The omo preset's status-directive nudge.
    expect(pi.sent[0]?.message.content).toContain("[Status: 0/1 completed, 1 remaining]");
    // No progress, yet nudged again: the file turned stagnation off, the option allows 4 nudges.
    await modelCall(pi, [asQueued(pi.sent[0]!)], assistant("stop"));
    await modelCall(pi, [asQueued(pi.sent[1]!)], assistant("stop"));
    await pi.emit("context", { messages: [asQueued(pi.sent[2]!)] });
    expect(await reasons(store)).toEqual(["inject", "inject", "inject"]);
  });

  it("a subagent reads no config and never runs the check", async () => {
    config({ verify: { command: counting("exit 1") } });
    const { pi } = await start({ subagent: true });
    await pi.emit("input", { text: "go", source: "interactive" });
    await modelCall(pi, [], assistant("stop"));
    await pi.emit("context", { messages: [] });
    expect(pi.sent).toEqual([]);
    expect(runs()).toBe(0);
    expect(pi.notices).toEqual([]);
  });

  it("a slow check does not hold pi's event loop: timers keep ticking while pi waits for it", async () => {
    config({ verify: { command: "sleep 2; exit 1", timeoutMs: 30_000 } });
    const { pi } = await start();
    await pi.emit("input", { text: "go", source: "interactive" });
    await pi.callTool("todo_write", init("A"));
    await pi.callTool("todo_write", doneAll("A"));
    await modelCall(pi, [], assistant("stop"));
    expect(pi.sent).toHaveLength(1);
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 50);
    const cpu = process.cpuUsage();
    const started = performance.now();
    let answered = false;
    const waiting = pi.emit("context", { messages: [asQueued(pi.sent[0]!)] }).then((r) => {
      answered = true;
      return r as { messages: PiMessage[] };
    });
    // Meanwhile pi's other handlers still run: a tool end is handled at once.
    await new Promise((r) => setTimeout(r, 300));
    pi.emitSync("tool_execution_end", { toolCallId: "x", toolName: "bash", isError: false });
    expect(answered).toBe(false);
    const seen = await waiting;
    const took = performance.now() - started;
    clearInterval(timer);
    const used = process.cpuUsage(cpu);
    const gaps = ticks.slice(1).map((t, i) => t - (ticks[i] as number));
    const worst = Math.max(...gaps);
    console.log(
      `pi slow check: context answered after ${took.toFixed(0)} ms; ${ticks.length} ticks of 50 ms, worst gap ${worst.toFixed(0)} ms; cpu ${((used.user + used.system) / 1000).toFixed(0)} ms`,
    );
    expect(took).toBeGreaterThanOrEqual(2_000);
    expect(JSON.stringify(seen.messages.at(-1))).toContain("exit code 1");
    expect(ticks.length).toBeGreaterThan(10);
    expect(worst).toBeLessThan(1_500);
  });
});

describe("the pi extension with a project's notify", () => {
  it("a trusted notify runs its command when the list written in the turn is done", async () => {
    const out = join(repo, "..", "notified.json");
    // Moved into place once written: the shell makes `out` before `cat` has written to it.
    config({ notify: { command: `cat > ${out}.tmp && mv ${out}.tmp ${out}` } });
    const { pi } = await start();
    await pi.emit("input", { text: "Do the work", source: "interactive" });
    await pi.callTool("todo_write", init("Parse", "Render"));
    await pi.callTool("todo_write", doneAll("Parse", "Render"));
    await modelCall(pi, [{ role: "user", content: "Do the work" }], assistant("stop"));
    await waitForFile(out);
    const payload = JSON.parse(readFileSync(out, "utf8"));
    expect(payload).toMatchObject({ event: "done", reason: "no-incomplete-todos", host: "pi" });
  });

  it("an untrusted notify sends nothing and says what to run", async () => {
    const out = join(repo, "..", "untrusted.json");
    config({ notify: { command: `cat > ${out}` } }, false);
    const { pi } = await start();
    await pi.emit("input", { text: "Do the work", source: "interactive" });
    await pi.callTool("todo_write", init("Parse"));
    await pi.callTool("todo_write", doneAll("Parse"));
    await modelCall(pi, [{ role: "user", content: "Do the work" }], assistant("stop"));
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(out)).toBe(false);
    expect(JSON.stringify(pi.notices)).toMatch(/notify not sent: .* is not trusted/);
  });
});

async function waitForFile(path: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (!existsSync(path)) {
    if (Date.now() > until) throw new Error(`${path} never appeared`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
