import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { Scope, Todo } from "../../core/types.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import type { HookProject } from "./project.js";
import {
  allowInvalidConfig,
  decideStop,
  endStop,
  type HookRuntimeOptions,
  hookRuntime,
} from "./stop.js";

const scope = resolveScope({ kind: "session", host: "test", sessionId: "s1" }) as Scope;
const open: Todo[] = [
  { id: "1", content: "Parser", status: "completed" },
  { id: "2", content: "Tests", status: "pending" },
];
const done: Todo[] = open.map((t) => ({ ...t, status: "completed" }));
const project = (fields: Partial<HookProject> = {}): HookProject => ({
  problem: null,
  notice: null,
  ...fields,
});

/** A session whose user asked for work and whose agent then wrote `todos`: a stop decides next. */
async function stopAfter(todos: Todo[], options: HookRuntimeOptions): Promise<void> {
  let clock = 1_000_000;
  const runtime = hookRuntime({ ...options, now: () => (clock += 1000) }, null);
  await runtime.turnStarted(scope, { real: true });
  await runtime.setTodos(scope, todos);
}

const folders: string[] = [];
afterEach(() => {
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

describe("hookRuntime", () => {
  it("takes the hook's preset over the project's, keeps it as the preset option, and closes with the host's words", async () => {
    const store = new MemoryStore();
    await stopAfter(open, { store });
    const runtime = hookRuntime({ store, preset: "typeclaw" }, project({ preset: "parley" }), {
      closeInstruction: "Close it with the table.",
    });
    const texts: string[] = [];
    const lines = await decideStop(runtime, scope, null, {
      outcome: { stopReason: "stop" },
      deliver: (nudge) => void texts.push(nudge.text),
    });
    expect(lines).toEqual([
      expect.stringMatching(/^todo-continuation: stop blocked with nudge 1 /),
    ]);
    expect(texts[0]).toContain("Close it with the table.");
    const state = (await store.read(scope)).state;
    expect(state.presetOption).toBe("typeclaw");
  });

  it("caps an episode's nudges at the host's own block cap, below the preset's budget", async () => {
    const store = new MemoryStore();
    const five = (closed: number): Todo[] =>
      ["a", "b", "c", "d", "e"].map((id, i) => ({
        id,
        content: `Step ${id}`,
        status: i < closed ? "completed" : "pending",
      }));
    await stopAfter(five(0), { store });
    let clock = 2_000_000;
    const runtime = hookRuntime({ store, now: () => (clock += 60_000) }, null, { maxNudges: 2 });
    const lines: string[] = [];
    for (let i = 0; i < 3; i++) {
      // Each nudged turn closes one item: progress, so only the cap can end the episode.
      if (i > 0) await runtime.setTodos(scope, five(i));
      const [line] = await decideStop(runtime, scope, null, {
        outcome: { stopReason: "stop", injected: i > 0 },
        deliver: () => {},
      });
      lines.push(line ?? "");
    }
    expect(lines[0]).toMatch(/stop blocked with nudge 1 /);
    expect(lines[1]).toMatch(/stop blocked with nudge 2 /);
    expect(lines[2]).toMatch(/^todo-continuation: stop allowed \((?!stagnation)[a-z-]+\)$/);
    // Without the cap the same third stop is nudged (the default preset allows more).
    const uncapped = new MemoryStore();
    await stopAfter(five(0), { store: uncapped });
    const free = hookRuntime({ store: uncapped, now: () => (clock += 60_000) }, null);
    let last = "";
    for (let i = 0; i < 3; i++) {
      if (i > 0) await free.setTodos(scope, five(i));
      [last = ""] = await decideStop(free, scope, null, {
        outcome: { stopReason: "stop", injected: i > 0 },
        deliver: () => {},
      });
    }
    expect(last).toMatch(/stop blocked with nudge 3 /);
  });
});

describe("allowInvalidConfig", () => {
  it("records the turn and a config-invalid skip with the problem, and nudges nothing", async () => {
    const store = new MemoryStore();
    await stopAfter(open, { store });
    const problem = "todo-continuation.config.json: limits.maxAutoTurns must be a number";
    const line = await allowInvalidConfig(
      hookRuntime({ store }, null),
      scope,
      { stopReason: "stop", turnId: "t9" },
      problem,
    );
    expect(line).toBe(`todo-continuation: stop allowed (config-invalid): ${problem}`);
    const log = await store.readLog(scope);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "config-invalid", note: problem });
    expect(log.some((e) => e.action === "inject")).toBe(false);
    expect((await store.read(scope)).state.lastOutcome?.turnId).toBe("t9");
  });
});

describe("endStop", () => {
  const problem = "todo-continuation.config.json: limits.maxAutoTurns must be a number";
  const withDocs: Todo[] = [...open, { id: "3", content: "Docs", status: "pending" }];

  /** A stop with a third item read at it, under `given`: which projects runtimes were made for. */
  async function stopWith(given: HookProject, detail?: string) {
    const store = new MemoryStore();
    await stopAfter(open, { store });
    const asked: (HookProject | null)[] = [];
    const delivered: string[] = [];
    const runtimeFor = (p: HookProject | null) => {
      asked.push(p);
      return hookRuntime({ store }, p);
    };
    const lines = await endStop(
      runtimeFor,
      scope,
      given,
      {
        outcome: { stopReason: "stop", turnId: "t9" },
        todos: withDocs,
        deliver: (nudge) => void delivered.push(nudge.text),
      },
      detail,
    );
    return { store, asked, delivered, lines, snap: await store.read(scope) };
  }

  it("under an invalid config records the list read at the stop, the turn and the skip, with the hook's own settings, and nudges nothing", async () => {
    const run = await stopWith(project({ problem, preset: "parley" }));
    expect(run.lines).toEqual([`todo-continuation: stop allowed (config-invalid): ${problem}`]);
    expect(run.asked).toEqual([null]);
    expect(run.delivered).toEqual([]);
    expect(run.snap.todos.todos.map((t) => t.id)).toEqual(["1", "2", "3"]);
    expect(run.snap.state.lastOutcome?.turnId).toBe("t9");
    expect((await run.store.readLog(scope)).at(-1)).toMatchObject({ reason: "config-invalid" });
  });

  it("with a valid config decides with the project's runtime, the list in the decision's write", async () => {
    const valid = project({ preset: "parley" });
    const run = await stopWith(valid, " (detail)");
    expect(run.asked).toEqual([valid]);
    expect(run.lines).toEqual([expect.stringMatching(/stop blocked with nudge 1 .*\(detail\)$/)]);
    expect(run.delivered[0]).toContain("Docs");
    expect(run.snap.todos.todos).toHaveLength(3);
  });
});

describe("decideStop", () => {
  it("says an untrusted check's notice once the list is finished, not while it is open", async () => {
    const store = new MemoryStore();
    await stopAfter(open, { store });
    const waiting = project({ notice: "verify waits for `todo-continuation trust`" });
    const runtime = hookRuntime({ store }, waiting);
    const first = await decideStop(runtime, scope, waiting, {
      outcome: { stopReason: "stop" },
      deliver: () => {},
    });
    expect(first).toHaveLength(1);
    await runtime.setTodos(scope, done);
    const second = await decideStop(runtime, scope, waiting, {
      outcome: { stopReason: "stop" },
      deliver: () => {},
    });
    expect(second).toEqual([
      "todo-continuation: stop allowed (no-incomplete-todos)",
      "todo-continuation: verify waits for `todo-continuation trust`",
    ]);
  });

  it("puts the host's detail after the decision and logs it as a stop hook's", async () => {
    const store = new MemoryStore();
    await stopAfter(done, { store });
    const lines = await decideStop(
      hookRuntime({ store }, null),
      scope,
      null,
      { outcome: { stopReason: "aborted" }, deliver: () => {} },
      " after the turn was cancelled",
    );
    expect(lines).toEqual([
      "todo-continuation: stop allowed (no-incomplete-todos) after the turn was cancelled",
    ]);
    expect((await store.readLog(scope)).at(-1)).toMatchObject({ trigger: "stop-hook" });
  });

  it("makes the check's cache folder ignore itself before the check can write there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-stop-"));
    folders.push(dir);
    const store = new MemoryStore();
    await stopAfter(open, { store });
    const cacheDir = join(dir, ".todo-continuation", "verify-cache");
    const verifying = project({
      verify: { settings: { command: "true", timeoutMs: 5000 } as never, cwd: dir, cacheDir },
    });
    await decideStop(hookRuntime({ store }, null), scope, verifying, {
      outcome: { stopReason: "stop" },
      deliver: () => {},
    });
    expect(existsSync(join(cacheDir, ".gitignore"))).toBe(true);
    expect(readFileSync(join(cacheDir, ".gitignore"), "utf8")).toContain("*");
  });
});
