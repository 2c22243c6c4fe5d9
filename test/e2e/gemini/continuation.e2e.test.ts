import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolvePreset } from "../../../src/core/engine/presets.js";
import { geminiDoctor, MIN_GEMINI_VERSION } from "../../../src/hosts/gemini/doctor.js";
import {
  answer,
  call,
  type GeminiCall,
  type GeminiServer,
  say,
  startGeminiServer,
} from "../support/gemini-server.js";
import {
  GEMINI_CLI_OLDEST,
  GEMINI_CLI_VERSION,
  type GeminiProject,
  geminiBin,
  isNudge,
  makeProject,
  nudgeCount,
  ourCli,
  readText,
  runGemini,
  runInstalledHook,
  sessionFileOf,
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

describe.each([GEMINI_CLI_VERSION, GEMINI_CLI_OLDEST])(
  "Gemini CLI %s with our hooks",
  (version) => {
    beforeAll(() => {
      geminiBin(version);
    });
    /** A project of this release with our hooks installed. */
    const installedHere = (options: Parameters<typeof makeProject>[0] = {}, preset?: string) =>
      installed({ ...options, version }, preset);

    it("is a release the doctor accepts, read from the real `gemini --version`", async () => {
      expect(MIN_GEMINI_VERSION).toBe(GEMINI_CLI_OLDEST);
      const project = await installedHere();
      const PATH = `${dirname(geminiBin(version))}:${process.env.PATH}`;
      const ctx = { cwd: project.dir, home: project.home, env: { HOME: project.home, PATH } };
      const found = (await geminiDoctor(ctx)).filter((f) => f.check === "version");
      const message = `Gemini CLI ${version} (needs ${GEMINI_CLI_OLDEST} or newer)`;
      expect(found).toEqual([expect.objectContaining({ ok: true, message })]);
    });

    it("nudges an early stop with open items until the list is done, then stays silent", async () => {
      const project = await installedHere();
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
              todos: [
                todo("Write the parser", "completed"),
                todo("Write the tests", "in_progress"),
              ],
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
      // The token budget advances from the session file Gemini CLI records: every scripted reply
      // reports 120 prompt and 20 output tokens, so the episode's spend is a positive multiple of 140.
      const spent = log.at(-1)?.tokens ?? 0;
      expect(spent).toBeGreaterThan(0);
      expect(spent % 140).toBe(0);
      // The hook ran without any trust bypass and Gemini CLI did not flag it as new.
      expect(result.stderr).not.toContain("project-level hooks have been detected");
    });

    it("an agent that never makes progress stops after the default preset's one wasted nudge", async () => {
      const project = await installedHere();
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
      const project = await installedHere({}, "parley");
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

    it("does not answer the same turn twice: once the loop detector cuts a continued turn, a hollow AfterAgent is let through", async () => {
      const project = await installedHere({}, "parley");
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
      // Headless, the loop detector ends the run itself after our one nudge.
      expect(result.stdout).toContain("Loop detected");
      const sessionId = sessionIdOf(result.stdout);
      expect(
        (await storedState(project, sessionId)).log.filter((e) => e.action === "inject"),
      ).toHaveLength(1);
      // The session file ends with requests that got no reply: the loop detector cut the call.
      const transcript = sessionFileOf(project, sessionId);
      const records = readText(transcript)
        .split("\n")
        .filter((l) => l.startsWith('{"id"'))
        .map((l) => JSON.parse(l) as { type: string });
      expect(records.at(-1)?.type).toBe("user");
      // Interactive, the CLI fires AfterAgent again with no model call and the same text. The
      // installed hook reads the session file it is given: the last call was cut off, so the
      // stop is let through and no nudge follows until the user writes.
      const afterAgent = {
        hook_event_name: "AfterAgent",
        session_id: sessionId,
        prompt: "Refactor the module.",
        stop_hook_active: true,
        transcript_path: transcript,
      };
      const hollow = await runInstalledHook(project, {
        ...afterAgent,
        prompt_response: "Pausing.",
      });
      expect(hollow.code).toBe(0);
      expect(JSON.parse(hollow.stdout)).toEqual({});
      expect(hollow.stderr).toContain("cancelled");
      // Text that grew with no model reply recorded is no new turn either.
      const grown = await runInstalledHook(project, {
        ...afterAgent,
        prompt_response: "Pausing.\nI looked at the module again.",
      });
      expect(JSON.parse(grown.stdout)).toEqual({});
      const { log } = await storedState(project, sessionId);
      expect(log.filter((e) => e.action === "inject")).toHaveLength(1);
      expect(log.at(-1)).toMatchObject({ action: "skip", reason: "user-abort-blocked" });
    });

    it("respects the user's cancel: a turn that ends with no response text is never nudged", async () => {
      const project = await installedHere();
      const gemini = await server((c) => {
        if (c.turn === 0) {
          return answer(call("write_todos", { todos: [todo("Write the report", "pending")] }));
        }
        return answer(say("Here is a first draft."));
      });
      // A real session first, so the store holds what a real one holds; its stop is nudged once.
      const result = await runGemini(project, gemini, "Write the report.");
      expect(result.code, result.stderr).toBe(0);
      const sessionId = sessionIdOf(result.stdout);
      // Esc in the interactive CLI ends the turn with AfterAgent's "[no response text]".
      const base = { hook_event_name: "AfterAgent", session_id: sessionId, prompt: "Next part." };
      const prompt = await runInstalledHook(project, {
        hook_event_name: "BeforeAgent",
        session_id: sessionId,
        prompt: "Next part.",
      });
      expect(prompt.code).toBe(0);
      const cancelled = await runInstalledHook(project, {
        ...base,
        prompt_response: "[no response text]",
        stop_hook_active: false,
      });
      expect(JSON.parse(cancelled.stdout)).toEqual({});
      expect(cancelled.stderr).toContain("cancelled");
      // The cancel holds until the user speaks again, even for a later stop with text.
      const later = await runInstalledHook(project, {
        ...base,
        prompt_response: "Partial text after the cancel.",
        stop_hook_active: false,
      });
      expect(JSON.parse(later.stdout)).toEqual({});
      const { log } = await storedState(project, sessionId);
      expect(log.at(-1)).toMatchObject({ action: "skip", reason: "user-abort-blocked" });
      // Our own nudge echoed through BeforeAgent is not the user speaking: still blocked.
      await runInstalledHook(project, {
        hook_event_name: "BeforeAgent",
        session_id: sessionId,
        prompt: "[automatic todo continuation]\nOpen todos remain.",
      });
      const stillBlocked = await runInstalledHook(project, {
        ...base,
        prompt_response: "More partial text.",
      });
      expect(JSON.parse(stillBlocked.stdout)).toEqual({});
      // A real prompt lifts it, and once the agent works its list again it is nudged.
      await runInstalledHook(project, {
        hook_event_name: "BeforeAgent",
        session_id: sessionId,
        prompt: "Please go on.",
      });
      await runInstalledHook(project, {
        hook_event_name: "AfterTool",
        session_id: sessionId,
        tool_name: "write_todos",
        tool_input: { todos: [todo("Write the report", "in_progress")] },
      });
      const resumed = await runInstalledHook(project, {
        ...base,
        prompt: "Please go on.",
        prompt_response: "Went on a little.",
      });
      expect(JSON.parse(resumed.stdout)).toMatchObject({ decision: "block" });
    });

    it("says nothing when every item is done", async () => {
      const project = await installedHere();
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
      const project = await installedHere();
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
      const project = await installedHere({ model: "gemini-3-flash-preview", taskTracker: true });
      const gemini = await server((c) => {
        const text = JSON.stringify(c.body.contents);
        const ids = [...text.matchAll(/Created task ([0-9a-f]{6})/g)].map((m) => m[1] as string);
        if (c.turn === 0) {
          return answer(
            call("tracker_create_task", {
              title: "Port the CLI",
              description: "port",
              type: "task",
            }),
          );
        }
        if (c.turn === 1) return answer(say("Stopping early."));
        if (isNudge(c))
          return answer(call("tracker_update_task", { id: ids[0], status: "closed" }));
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
  },
);
