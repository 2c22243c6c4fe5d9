import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolvePreset } from "../../../src/core/engine/presets.js";
import {
  answer,
  call,
  type GeminiCall,
  type GeminiServer,
  say,
  startGeminiServer,
} from "../support/gemini-server.js";
import {
  type GeminiProject,
  geminiBin,
  isNudge,
  makeProject,
  nudgeCount,
  ourCli,
  runGemini,
  sessionIdOf,
  storedState,
} from "./gemini-world.js";

const projects: GeminiProject[] = [];
const servers: GeminiServer[] = [];

beforeAll(() => {
  geminiBin();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const p of projects) p.cleanup();
});

async function installed(options: Parameters<typeof makeProject>[0] = {}, preset?: string) {
  const project = makeProject(options);
  projects.push(project);
  const install = await ourCli(project, [
    "install",
    "gemini",
    "--project",
    ...(preset === undefined ? [] : ["--preset", preset]),
  ]);
  expect(install.code, install.stderr).toBe(0);
  return project;
}

async function server(script: (call: GeminiCall) => ReturnType<typeof answer>) {
  const s = await startGeminiServer({ script });
  servers.push(s);
  return s;
}

const todo = (description: string, status: string) => ({ description, status });

describe("Gemini CLI 0.61.0 with our hooks", () => {
  it("nudges an early stop with open items until the list is done, then stays silent", async () => {
    const project = await installed();
    const gemini = await server((c) => {
      const nudges = nudgeCount([c]) > 0 ? 1 : 0;
      const seen = (c.body.contents ?? []).filter((x) =>
        JSON.stringify(x).includes("[automatic todo continuation]"),
      ).length;
      if (c.turn === 0) {
        return answer(
          say("Planning."),
          call("write_todos", {
            todos: [todo("Write the parser", "in_progress"), todo("Write the tests", "pending")],
          }),
        );
      }
      if (c.turn === 1) return answer(say("I will stop here for now."));
      if (nudges === 1 && seen === 1) {
        return answer(
          call("write_todos", {
            todos: [todo("Write the parser", "completed"), todo("Write the tests", "in_progress")],
          }),
        );
      }
      if (nudges === 1 && seen === 2) {
        return answer(
          call("write_todos", {
            todos: [todo("Write the parser", "completed"), todo("Write the tests", "completed")],
          }),
        );
      }
      return answer(say(`Progress report ${c.turn}.`));
    });
    const result = await runGemini(project, gemini, "Build the parser and its tests.");
    expect(result.code, result.stderr).toBe(0);
    const calls = gemini.turns();
    expect(nudgeCount(calls)).toBe(2);
    const firstNudge = calls.find(isNudge);
    expect(firstNudge?.lastUserText).toContain("Write the tests");
    const { todos, log } = await storedState(project, sessionIdOf(result.stdout));
    expect(todos.map((t) => t.status)).toEqual(["completed", "completed"]);
    expect(log.filter((e) => e.action === "inject")).toHaveLength(2);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "no-incomplete-todos" });
    // The hook ran without any trust bypass and Gemini CLI did not flag it as new.
    expect(result.stderr).not.toContain("project-level hooks have been detected");
  });

  it("an agent that never makes progress stops after the default preset's one wasted nudge", async () => {
    const project = await installed();
    const gemini = await server((c) => {
      if (c.turn === 0) {
        return answer(call("write_todos", { todos: [todo("Migrate the schema", "pending")] }));
      }
      // Busy-looking but no list progress: a different read each time, then a stop.
      if (isNudge(c))
        return answer(call("list_directory", { dir_path: `.${"/.".repeat(c.turn)}` }));
      return answer(say(`Still looking (${c.turn}).`));
    });
    const result = await runGemini(project, gemini, "Migrate the schema.");
    expect(result.code, result.stderr).toBe(0);
    const { log } = await storedState(project, sessionIdOf(result.stdout));
    const injects = log.filter((e) => e.action === "inject").length;
    expect(injects).toBeGreaterThanOrEqual(1);
    expect(injects).toBeLessThanOrEqual(resolvePreset("default").limits.stagnationLimit + 1);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "stagnation" });
    expect(nudgeCount(gemini.turns())).toBe(injects);
  });

  it("an always-stopping model stops at the preset's turn cap when nothing else stops it", async () => {
    // parley: 25 nudges, no stagnation check: only our turn budget ends this.
    const project = await installed({}, "parley");
    const gemini = await server((c) => {
      if (c.turn === 0) {
        return answer(call("write_todos", { todos: [todo("Ship the release", "pending")] }));
      }
      return answer(say(`Stopping now, reply ${c.turn}.`));
    });
    const result = await runGemini(project, gemini, "Ship the release.");
    expect(result.code, result.stderr).toBe(0);
    const cap = resolvePreset("parley").limits.maxAutoTurns;
    const { log } = await storedState(project, sessionIdOf(result.stdout));
    expect(log.filter((e) => e.action === "inject")).toHaveLength(cap);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "max-auto-turns" });
    expect(nudgeCount(gemini.turns())).toBe(cap);
  });

  it("stops blocking once the CLI spins: its loop detector tripped and the response stopped growing", async () => {
    const project = await installed({}, "parley");
    const gemini = await server((c) => {
      if (c.turn === 0) {
        return answer(call("write_todos", { todos: [todo("Refactor the module", "pending")] }));
      }
      if (c.turn === 1) return answer(say("Pausing."));
      // After the nudge: the same call over and over, which trips Gemini CLI's loop detector.
      return answer(call("read_file", { file_path: "same.txt" }));
    });
    const result = await runGemini(project, gemini, "Refactor the module.");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Loop detected");
    const { log } = await storedState(project, sessionIdOf(result.stdout));
    const injects = log.filter((e) => e.action === "inject").length;
    // Far below parley's 25: the hollow AfterAgent after the loop stop is not answered.
    expect(injects).toBeLessThanOrEqual(2);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "turn-not-safe" });
  });

  it("says nothing when every item is done", async () => {
    const project = await installed();
    const gemini = await server((c) => {
      if (c.turn === 0) {
        return answer(
          call("write_todos", {
            todos: [todo("Read the spec", "completed"), todo("Drop the old flag", "cancelled")],
          }),
        );
      }
      return answer(say("All done."));
    });
    const result = await runGemini(project, gemini, "Tidy up.");
    expect(result.code, result.stderr).toBe(0);
    expect(gemini.turns()).toHaveLength(2);
    expect(nudgeCount(gemini.turns())).toBe(0);
    const { log } = await storedState(project, sessionIdOf(result.stdout));
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "no-incomplete-todos" });
  });

  it("keeps a subagent's write_todos off the parent's list", async () => {
    const project = await installed();
    const gemini = await server((c) => {
      const text = JSON.stringify(c.body.contents);
      const offersInvoke = (c.body.tools ?? []).some((t) =>
        (t.functionDeclarations ?? []).some((f) => f.name === "invoke_agent"),
      );
      if (!offersInvoke) {
        // The subagent: its own list, then it ends.
        if (!text.includes("Child step")) {
          return answer(call("write_todos", { todos: [todo("Child step", "pending")] }));
        }
        return answer(say("Child finished."));
      }
      if (c.turn === 0) {
        return answer(call("write_todos", { todos: [todo("Parent step", "in_progress")] }));
      }
      if (!text.includes("invoke_agent")) {
        return answer(call("invoke_agent", { agent_name: "generalist", prompt: "Investigate." }));
      }
      if (!isNudge(c) && !text.includes("[automatic todo continuation]")) {
        return answer(say("Pausing after the investigation."));
      }
      if (isNudge(c)) {
        return answer(call("write_todos", { todos: [todo("Parent step", "completed")] }));
      }
      return answer(say("Done."));
    });
    const result = await runGemini(project, gemini, "Investigate, then finish the parent step.");
    expect(result.code, result.stderr).toBe(0);
    const nudges = gemini.turns().filter(isNudge);
    expect(nudges).toHaveLength(1);
    expect(nudges[0]?.lastUserText).toContain("Parent step");
    expect(nudges[0]?.lastUserText).not.toContain("Child step");
    const { todos } = await storedState(project, sessionIdOf(result.stdout));
    expect(todos.map((t) => t.content)).toEqual(["Parent step"]);
    expect(todos[0]?.status).toBe("completed");
  });

  it("works with the task tracker on a gemini-3 model", async () => {
    const project = await installed({ model: "gemini-3-flash-preview", taskTracker: true });
    const gemini = await server((c) => {
      const text = JSON.stringify(c.body.contents);
      const ids = [...text.matchAll(/Created task ([0-9a-f]{6})/g)].map((m) => m[1] as string);
      if (c.turn === 0) {
        return answer(
          call("tracker_create_task", { title: "Port the CLI", description: "port", type: "task" }),
        );
      }
      if (c.turn === 1) return answer(say("Stopping early."));
      if (isNudge(c)) return answer(call("tracker_update_task", { id: ids[0], status: "closed" }));
      return answer(say("Closed it."));
    });
    const result = await runGemini(project, gemini, "Port the CLI.");
    expect(result.code, result.stderr).toBe(0);
    const nudges = gemini.turns().filter(isNudge);
    expect(nudges).toHaveLength(1);
    expect(nudges[0]?.lastUserText).toContain("Port the CLI");
    expect(nudges[0]?.lastUserText).toContain("tracker_update_task");
    const { todos, log } = await storedState(project, sessionIdOf(result.stdout));
    expect(todos).toHaveLength(1);
    expect(todos[0]?.status).toBe("completed");
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "no-incomplete-todos" });
  });
});
