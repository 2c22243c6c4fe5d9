import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answer,
  call,
  type GeminiServer,
  say,
  startGeminiServer,
} from "../support/gemini-server.js";
import {
  type GeminiProject,
  geminiBin,
  makeProject,
  nudgeCount,
  ourCli,
  readText,
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

describe("install gemini into a real Gemini CLI 0.61.0 project", () => {
  it("is idempotent, keeps the user's file and hooks, runs without any trust bypass, and uninstalls to the original bytes", async () => {
    const project = makeProject();
    projects.push(project);
    const settingsPath = join(project.dir, ".gemini", "settings.json");
    // The user's own file: four-space indent, a hook of their own.
    const original = `${JSON.stringify(
      {
        model: { name: "gemini-2.5-flash" },
        security: { auth: { selectedType: "gemini-api-key" } },
        hooks: {
          AfterAgent: [{ hooks: [{ name: "notify", type: "command", command: "true" }] }],
        },
      },
      null,
      4,
    )}\n`;
    writeFileSync(settingsPath, original);
    const trustedHooks = join(project.home, ".gemini", "trusted_hooks.json");

    const first = await ourCli(project, ["install", "gemini"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("added AfterAgent hook");
    expect(first.stdout).toContain("Todo tool: model gemini-2.5-flash has write_todos");
    expect(first.stdout).not.toContain("not trusted");
    const installed = readText(settingsPath);
    expect(installed).toContain('\n    "hooks": {');
    const settings = JSON.parse(installed);
    expect(settings.hooks.AfterAgent[0].hooks[0].name).toBe("notify");
    const trust = readText(trustedHooks);

    const second = await ourCli(project, ["install", "gemini"]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("nothing changed");
    expect(readText(settingsPath)).toBe(installed);
    expect(readText(trustedHooks)).toBe(trust);

    // Our hooks run in a plain headless run: no --skip-trust, no GEMINI_CLI_TRUST_WORKSPACE,
    // and Gemini CLI announces only the user's own new hook, not ours (listed as trusted).
    const gemini = await startGeminiServer({
      script: (c) =>
        c.turn === 0
          ? answer(
              call("write_todos", { todos: [{ description: "One thing", status: "pending" }] }),
            )
          : answer(say("Stopping.")),
    });
    servers.push(gemini);
    const result = await runGemini(project, gemini, "Do one thing.");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/project-level hooks have been detected[\s\S]*- notify/);
    expect(result.stderr).not.toMatch(
      /project-level hooks have been detected[\s\S]*- todo-continuation/,
    );
    expect(nudgeCount(gemini.turns())).toBeGreaterThan(0);
    const { todos } = await storedState(project, sessionIdOf(result.stdout));
    expect(todos.map((t) => t.content)).toEqual(["One thing"]);

    const removed = await ourCli(project, ["uninstall", "gemini"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readText(settingsPath)).toBe(original);
    expect(readText(trustedHooks)).not.toContain("todo-continuation");
    const again = await ourCli(project, ["uninstall", "gemini"]);
    expect(again.stdout).toContain("nothing changed");
  });

  it("tells the user to trust the folder, and that the default model has no todo tool", async () => {
    const project = makeProject({ extra: { model: {} } });
    projects.push(project);
    rmSync(join(project.home, ".gemini", "trustedFolders.json"));
    const out = await ourCli(project, ["install", "gemini", "--project"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("is not trusted yet");
    expect(out.stdout).toContain("Trust folder");
    expect(out.stdout).toContain("model auto has no write_todos");
    expect(out.stdout).toContain('"experimental": {"taskTracker": true}');
    expect(existsSync(join(project.dir, ".gemini", "settings.json"))).toBe(true);
  });
});
