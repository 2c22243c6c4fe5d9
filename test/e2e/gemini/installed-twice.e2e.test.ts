import { afterAll, describe, expect, it } from "vitest";
import {
  answer,
  call,
  type GeminiServer,
  say,
  startGeminiServer,
} from "../support/gemini-server.js";
import {
  type GeminiProject,
  makeProject,
  nudgeCount,
  ourCli,
  runGemini,
  sessionIdOf,
  storedState,
} from "./gemini-world.js";

const projects: GeminiProject[] = [];
const servers: GeminiServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const p of projects) p.cleanup();
});

const todo = (description: string, status: string) => ({ description, status });

/**
 * Ours in the project's settings and the user's: Gemini CLI (0.61.0) runs a hook of the same name
 * and command once, and both installs write the same one, so each event runs once. Were the two
 * ever to differ, each stop would be decided twice (the second seeing no progress since the
 * first's nudge).
 */
describe("Gemini CLI with our hooks in both the project's and the user's settings", () => {
  it("runs ours once per event: one decision per stop", async () => {
    const project = makeProject();
    projects.push(project);
    for (const target of ["--project", "--user"]) {
      const install = await ourCli(project, ["install", "gemini", target]);
      expect(install.code, install.stderr).toBe(0);
    }
    const gemini = await startGeminiServer({
      script: (c) => {
        if (c.turn === 0) {
          return answer(
            call("write_todos", {
              todos: [todo("Write the parser", "in_progress"), todo("Write the tests", "pending")],
            }),
          );
        }
        if (c.turn === 1) return answer(say("I will stop here for now."));
        const done = nudgeCount([c]) > 0 ? "completed" : "in_progress";
        if (c.turn === 2) {
          return answer(
            call("write_todos", {
              todos: [todo("Write the parser", "completed"), todo("Write the tests", done)],
            }),
          );
        }
        return answer(say(`Progress report ${c.turn}.`));
      },
    });
    servers.push(gemini);
    const result = await runGemini(project, gemini, "Build the parser and its tests.");
    expect(result.code, result.stderr).toBe(0);
    const { log } = await storedState(project, sessionIdOf(result.stdout));
    // Each stop once: a nudge, then (the list done) the stop allowed, never `stagnation`.
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "no-incomplete-todos"]);
  });
});
