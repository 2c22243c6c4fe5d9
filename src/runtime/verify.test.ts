import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope, Todo } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { makeRepo } from "../verify/test-support/repo.js";
import { ContinuationRuntime, type Nudge } from "./runtime.js";

const scope = resolveScope({ kind: "session", host: "test", sessionId: "v1" }) as Scope;
const scratch = mkdtempSync(join(tmpdir(), "tc-runtime-verify-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function todos(...statuses: Todo["status"][]): Todo[] {
  return statuses.map((status, i) => ({ content: `item ${i + 1}`, status }));
}

function setup(command: string, timeoutMs = 10_000) {
  const repo = makeRepo(50, "tc-runtime-verify-repo-");
  const counter = join(scratch, `count-${Math.random().toString(36).slice(2)}`);
  const store = new MemoryStore();
  const runtime = new ContinuationRuntime({
    store,
    verify: {
      settings: { command: `echo run >> ${counter}; ${command}`, timeoutMs, when: "finished" },
      cwd: repo,
      cacheDir: mkdtempSync(join(scratch, "cache-")),
    },
  });
  const delivered: Nudge[] = [];
  let turn = 0;
  const stop = async () => {
    turn += 1;
    return runtime.runIdle(scope, {
      trigger: "stop-hook",
      deliver: (n) => void delivered.push(n),
      outcome: { turnId: `t${turn}`, stopReason: "stop" },
    });
  };
  const runs = () => {
    try {
      return readFileSync(counter, "utf8").split("\n").filter(Boolean).length;
    } catch {
      return 0;
    }
  };
  return { repo, store, runtime, delivered, stop, runs };
}

describe("ContinuationRuntime with verify", () => {
  it("false finisher: a done list with a failing check is nudged with the output, then verified once fixed", async () => {
    const s = setup('test -e DONE || { echo "missing DONE"; exit 1; }');
    await s.runtime.turnStarted(scope, { real: true });
    await s.runtime.setTodos(scope, todos("completed", "completed"));
    const first = await s.stop();
    expect(first.action).toBe("inject");
    const text = s.delivered[0]?.text ?? "";
    expect(text).toContain("the project's check fails");
    expect(text).toContain("exit code 1");
    expect(text).toContain("missing DONE");
    expect(text).toMatch(/Track what remains on your todo list/);
    let log = await s.store.readLog(scope);
    expect(log.at(-1)?.note).toMatch(/^check failed: exit 1 in /);

    // The agent stops again without changing anything: no second run, the episode ends.
    const again = await s.stop();
    expect(again).toEqual({ action: "skip", reason: "verify-unchanged-failure" });
    expect(s.runs()).toBe(1);

    // A real user turn, the agent fixes the tree and stops: verified, no nudge.
    await s.runtime.turnStarted(scope, { real: true });
    await s.runtime.setTodos(scope, todos("completed", "completed", "completed"));
    writeFileSync(join(s.repo, "DONE"), "yes");
    const fixed = await s.stop();
    expect(fixed).toEqual({ action: "skip", reason: "verified" });
    expect(s.runs()).toBe(2);
    log = await s.store.readLog(scope);
    expect(log.at(-1)?.note).toMatch(/^verified in \d/);
    const snap = await s.store.read(scope);
    expect(snap.state.verify?.last).toMatchObject({ status: "passed", exitCode: 0 });
    // Verified and unchanged: the next stop does not run it again.
    expect(await s.stop()).toEqual({ action: "skip", reason: "verified" });
    expect(s.runs()).toBe(2);
    expect(s.delivered).toHaveLength(1);
    rmSync(s.repo, { recursive: true, force: true });
  });

  it("a check that times out never nudges, and says so", async () => {
    const s = setup("sleep 20", 1_000);
    await s.runtime.turnStarted(scope, { real: true });
    await s.runtime.setTodos(scope, todos("completed"));
    expect(await s.stop()).toEqual({ action: "skip", reason: "verify-timed-out" });
    expect(s.delivered).toHaveLength(0);
    expect((await s.store.readLog(scope)).at(-1)?.note).toMatch(
      /^check timed out after .*; not nudged/,
    );
    rmSync(s.repo, { recursive: true, force: true });
  });

  it("never runs for a list with work left, a session with no list, or a subagent", async () => {
    const s = setup("exit 1");
    await s.runtime.turnStarted(scope, { real: true });
    expect(await s.stop()).toEqual({ action: "skip", reason: "no-incomplete-todos" });
    await s.runtime.setTodos(scope, todos("completed", "pending"));
    expect((await s.stop()).action).toBe("inject");
    await s.runtime.setTodos(scope, todos("completed", "completed"));
    const sub = await s.runtime.runIdle(scope, {
      deliver: () => undefined,
      signals: { agentExcluded: true },
      outcome: { turnId: "sub", stopReason: "stop" },
    });
    expect(sub).toEqual({ action: "skip", reason: "no-incomplete-todos" });
    expect(s.runs()).toBe(0);
    rmSync(s.repo, { recursive: true, force: true });
  });
});
