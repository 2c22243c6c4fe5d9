import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  answer,
  call,
  type GeminiServer,
  say,
  startGeminiServer,
} from "../support/gemini-server.js";
import { packageCopy } from "../support/package-copy.js";
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
const copies = mkdtempSync(join(tmpdir(), "tc-gemini-copies-"));
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const p of projects) p.cleanup();
  rmSync(copies, { recursive: true, force: true });
});

const todo = (description: string, status: string) => ({ description, status });

/** A model that writes a list, stops early once, then finishes the list when nudged. */
async function stopsEarlyOnce(): Promise<GeminiServer> {
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
  return gemini;
}

/**
 * Ours in the project's settings and the user's: Gemini CLI (0.61.0) runs a hook of the same name
 * and command once, and both installs from one copy of the package write the same one, so each
 * event runs once. Two copies of the package write two commands, and Gemini CLI runs both: the
 * claim each makes per event (hook-kit/event-claim.ts) leaves each event to one of them.
 */
describe("Gemini CLI with our hooks in both the project's and the user's settings", () => {
  it("runs ours once per event: one decision per stop", async () => {
    const project = makeProject();
    projects.push(project);
    for (const target of ["--project", "--user"]) {
      const install = await ourCli(project, ["install", "gemini", target]);
      expect(install.code, install.stderr).toBe(0);
    }
    const gemini = await stopsEarlyOnce();
    const result = await runGemini(project, gemini, "Build the parser and its tests.");
    expect(result.code, result.stderr).toBe(0);
    const { log } = await storedState(project, sessionIdOf(result.stdout));
    // Each stop once: a nudge, then (the list done) the stop allowed, never `stagnation`.
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "no-incomplete-todos"]);
  });

  it("from two copies of the package (a global one and the project's): one decision per stop", async () => {
    const project = makeProject();
    projects.push(project);
    const local = await ourCli(project, ["install", "gemini", "--project"]);
    expect(local.code, local.stderr).toBe(0);
    const global = await ourCli(
      project,
      ["install", "gemini", "--user"],
      undefined,
      packageCopy(copies),
    );
    expect(global.code, global.stderr).toBe(0);
    const gemini = await stopsEarlyOnce();
    const result = await runGemini(project, gemini, "Build the parser and its tests.");
    expect(result.code, result.stderr).toBe(0);
    const { log } = await storedState(project, sessionIdOf(result.stdout));
    // Gemini CLI runs both commands; decided by both, the stop after the nudge is `stagnation`.
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "no-incomplete-todos"]);
  });
});
