import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { hasSqlite3 } from "../test-support/sqlite3.js";
import { runCopilotHook } from "./hook.js";
import { parseCopilotInput } from "./payload.js";
import { copilotTranscriptPath } from "./session-state.js";
import { todosFromRows } from "./todos.js";

/** Payloads exactly as Copilot CLI 1.0.102 sent them (docs/copilot.md). */
const SESSION = "fd351624-7b6a-4467-b286-27a544f4a2d4";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function world(flags: string[] = []) {
  const root = mkdtempSync(join(tmpdir(), "tc-copilot-hook-"));
  dirs.push(root);
  const sessionDir = join(root, "copilot-home", "session-state", SESSION);
  mkdirSync(sessionDir, { recursive: true });
  const transcriptPath = join(sessionDir, "events.jsonl");
  writeFileSync(transcriptPath, "");
  const store = join(root, "store");
  const run = async (event: string, payload: object) => {
    let stdout = "";
    let stderr = "";
    const code = await runCopilotHook(["--event", event, "--dir", store, ...flags], {
      stdin: Readable.from([JSON.stringify(payload)]),
      stdout: {
        write: (t: string) => {
          stdout += t;
        },
      },
      stderr: {
        write: (t: string) => {
          stderr += t;
        },
      },
      // Copilot's own environment, which the hook inherits.
      env: { PATH: process.env.PATH, COPILOT_HOME: join(root, "copilot-home") },
      cwd: root,
    });
    return { code, stdout, stderr };
  };
  // Each event of Copilot's has its own timestamp (two runs of one event share it).
  let clock = 1795719793100;
  const tick = () => {
    clock += 1000;
    return clock;
  };
  const stop = (active = false, timestamp = tick()) =>
    run("agentStop", {
      sessionId: SESSION,
      timestamp,
      cwd: root,
      transcriptPath,
      stopReason: "end_turn",
      stop_hook_active: active,
    });
  const prompt = (text: string, timestamp = tick()) =>
    run("userPromptSubmitted", {
      sessionId: SESSION,
      timestamp,
      cwd: root,
      prompt: text,
    });
  /** The model's `sql` tool writes here; the sqlite3 program stands in for it. */
  const sql = (query: string) => execFileSync("sqlite3", [join(sessionDir, "session.db"), query]);
  sql(
    "CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT, description TEXT, status TEXT, created_at TEXT, updated_at TEXT)",
  );
  /** Files of the store that name `id` (a scope's state, log or notes). */
  const storeFilesNaming = (id: string) =>
    (readdirSync(store, { recursive: true }) as string[]).filter((f) => f.includes(id));
  /** The project's config file, where the hook looks for it (the session's folder). */
  const config = (value: object | string) =>
    writeFileSync(
      join(root, "todo-continuation.config.json"),
      typeof value === "string" ? value : JSON.stringify(value),
    );
  return { stop, prompt, sql, run, transcriptPath, storeFilesNaming, config };
}

describe.skipIf(!hasSqlite3)("hook copilot", () => {
  it("tells the model to close items in its todos table, and nudges at most Copilot's 8 times", async () => {
    const w = world();
    w.config({ limits: { maxAutoTurns: 20 } });
    await w.prompt("Build the parser.");
    w.sql("INSERT INTO todos (id, title, status) VALUES ('write-parser', 'Writing', 'pending')");
    const { reason } = JSON.parse((await w.stop()).stdout) as { reason: string };
    expect(reason).toContain("with the sql tool");
    expect(reason).toContain("[write-parser]");
    expect(reason).not.toContain("todo_update");
    await w.prompt(reason);
    // An item done and a new one each time: only the budget ends the episode, the file's 20
    // capped at 8.
    const answers: string[] = [];
    for (let i = 2; i <= 10; i++) {
      w.sql(
        `UPDATE todos SET status = 'done'; INSERT INTO todos (id, title, status) VALUES ('step-${i}', 'Step ${i}', 'pending')`,
      );
      const { stdout, stderr } = await w.stop(true);
      if (stdout === "") {
        answers.push(stderr);
        break;
      }
      const next = JSON.parse(stdout) as { reason: string };
      expect(next.reason).toContain(`Automatic nudge ${i} of 8.`);
      await w.prompt(next.reason);
    }
    expect(answers).toEqual([expect.stringContaining("max-auto-turns")]);
  });

  it("follows the project's config file: advise mode, an invalid file, and --mode", async () => {
    const advised = world();
    advised.config({ mode: "advise" });
    await advised.prompt("Build the parser.");
    advised.sql("INSERT INTO todos (id, title, status) VALUES ('a', 'A', 'pending')");
    const quiet = await advised.stop();
    expect(quiet.stdout).toBe("");
    expect(quiet.stderr).toContain("advise mode: would nudge");

    const broken = world();
    broken.config({ limits: { maxAutoTurns: "many" } });
    await broken.prompt("Build the parser.");
    broken.sql("INSERT INTO todos (id, title, status) VALUES ('a', 'A', 'pending')");
    const refused = await broken.stop();
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("stop allowed (config-invalid)");

    const flagged = world(["--mode", "advise"]);
    await flagged.prompt("Build the parser.");
    flagged.sql("INSERT INTO todos (id, title, status) VALUES ('a', 'A', 'pending')");
    const held = await flagged.stop();
    expect(held.stdout).toBe("");
    expect(held.stderr).toContain("advise mode: would nudge");
  });

  it("blocks a stop while the todos table has open items, and allows it once all are done", async () => {
    const w = world();
    await w.prompt("Build the parser.");
    w.sql(
      "INSERT INTO todos (id, title, status) VALUES ('write-parser', 'Writing the parser', 'in_progress'), ('add-tests', 'Adding tests', 'pending')",
    );
    const first = await w.stop();
    expect(first.code).toBe(0);
    const reply = JSON.parse(first.stdout) as { decision: string; reason: string };
    expect(reply.decision).toBe("block");
    expect(reply.reason).toContain("Writing the parser");
    expect(reply.reason).toContain("Adding tests");
    // Copilot hands the reason back as a prompt: ours, so the budget keeps counting.
    await w.prompt(reply.reason);
    w.sql("UPDATE todos SET status = 'done'");
    const last = await w.stop(true);
    expect(last.stdout).toBe("");
    expect(last.stderr).toContain("stop allowed (no-incomplete-todos)");
  });

  it("stops at the budget when nothing moves, below Copilot's own cap of 8", async () => {
    const w = world();
    await w.prompt("Migrate the database.");
    w.sql("INSERT INTO todos (id, title, status) VALUES ('migrate', 'Migrating', 'pending')");
    const answers: string[] = [];
    for (let i = 0; i < 8; i++) {
      const { stdout } = await w.stop(i > 0);
      answers.push(stdout === "" ? "allow" : "block");
      if (stdout !== "") await w.prompt((JSON.parse(stdout) as { reason: string }).reason);
    }
    expect(answers.indexOf("allow")).toBeGreaterThan(0);
    expect(answers.indexOf("allow")).toBeLessThanOrEqual(8);
  });

  it("does nothing on a second run of one event (ours in both hooks folders: one payload, twice)", async () => {
    const w = world();
    await w.prompt("Build the parser.");
    w.sql(
      "INSERT INTO todos (id, title, status) VALUES ('p', 'Parser', 'pending'), ('t', 'Tests', 'pending')",
    );
    const first = await w.stop(false, 1795846247379);
    expect(first.stdout).toContain('"decision":"block"');
    const second = await w.stop(false, 1795846247379);
    expect(second.stdout).toBe("");
    expect(second.stderr).toContain("this agentStop was handled by another copy of this hook");
    // Copilot hands the block's reason back as a prompt, to both copies: neither is the user's.
    const reason = (JSON.parse(first.stdout) as { reason: string }).reason;
    expect(reason).toContain("Automatic nudge 1 of 8.");
    await w.prompt(reason, 1795846248000);
    const echo = await w.prompt(reason, 1795846248000);
    expect(echo.stderr).toContain("this userPromptSubmitted was handled by another copy");
    // Progress, then a stop: the same episode's second nudge (a prompt counted as the user's
    // would have started a new episode at nudge 1).
    w.sql("UPDATE todos SET status = 'done' WHERE id = 'p'");
    const next = await w.stop(true);
    expect((JSON.parse(next.stdout) as { reason: string }).reason).toContain(
      "Automatic nudge 2 of 8.",
    );
  });

  it("takes the list as it is when the user speaks, though the interrupted turn fired no agentStop", async () => {
    const w = world();
    await w.prompt("Fix the importer.");
    // The turn writes its list, then the user interrupts it: Copilot fires no agentStop.
    w.sql(
      "INSERT INTO todos (id, title, status) VALUES ('importer', 'Fixing the importer', 'pending')",
    );
    await w.prompt("Stop. Read the failing log first.");
    const redirected = await w.stop();
    expect(redirected.stdout).toBe("");
    expect(redirected.stderr).toContain("stop allowed (list-unchanged-since-user)");
    // Once the agent works its list again, an open item is nudged.
    w.sql("UPDATE todos SET status = 'in_progress'");
    expect(JSON.parse((await w.stop()).stdout)).toMatchObject({ decision: "block" });
  });

  it("never answers a subagent's prompt or stop, and keeps no state for it", async () => {
    const w = world();
    const agent = "af245d7c-8735-4fa8-9dc1-693d91797d4e";
    const ids = { agentId: agent, agentType: "general-purpose", parentAgentId: SESSION };
    await w.prompt("Split the work.");
    // As measured: the subagent's events carry its own id as sessionId, the parent's transcript.
    await w.run("userPromptSubmitted", {
      sessionId: agent,
      timestamp: 1,
      cwd: "/p",
      prompt: "Port the helpers",
      ...ids,
    });
    w.sql(
      "INSERT INTO todos (id, title, status) VALUES ('helpers', 'Porting the helpers', 'pending')",
    );
    const sub = await w.run("agentStop", {
      sessionId: agent,
      timestamp: 2,
      cwd: "/p",
      transcriptPath: w.transcriptPath,
      stopReason: "end_turn",
      stop_hook_active: false,
      ...ids,
    });
    expect(sub.stdout).toBe("");
    expect(sub.stderr).toContain("agentStop of a subagent (general-purpose); not nudged");
    expect(w.storeFilesNaming(agent)).toEqual([]);
    // The table is the session's: the parent's stop is decided on it, the subagent's row included.
    const parent = JSON.parse((await w.stop()).stdout) as { reason: string };
    expect(parent.reason).toContain("Porting the helpers");
  });

  it("allows the stop of a session without a list, and on any bad input", async () => {
    const w = world();
    expect((await w.stop()).stdout).toBe("");
    const bad = await w.run("agentStop", { sessionId: SESSION, stop_hook_active: "yes" });
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain("stop_hook_active must be a boolean");
    w.sql("INSERT INTO todos (id, title, status) VALUES ('x', 'X', 'someday')");
    const unknown = await w.stop();
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toContain('unknown status "someday"');
  });
});

describe("Copilot payloads and rows", () => {
  it("reads a subagent's events as a subagent's, and the measured fields", () => {
    for (const event of ["agentStop", "userPromptSubmitted"] as const) {
      expect(
        parseCopilotInput(
          JSON.stringify({
            sessionId: "a",
            prompt: "p",
            agentId: "a",
            agentType: "explore",
            parentAgentId: "s",
          }),
          event,
        ),
      ).toEqual({ kind: "subagent", event, sessionId: "a", cwd: null, agentType: "explore" });
    }
    expect(
      parseCopilotInput(
        JSON.stringify({
          sessionId: "s",
          timestamp: 1795846247379,
          cwd: "/p",
          transcriptPath: "/t",
          stopReason: "end_turn",
          stop_hook_active: true,
        }),
        "agentStop",
      ),
    ).toEqual({
      kind: "agentStop",
      sessionId: "s",
      cwd: "/p",
      timestamp: 1795846247379,
      transcriptPath: "/t",
      stopReason: "end_turn",
      stopHookActive: true,
    });
  });

  it("finds a session's files under COPILOT_HOME, else ~/.copilot", () => {
    expect(copilotTranscriptPath("s-1", { COPILOT_HOME: "/c", HOME: "/h" })).toBe(
      "/c/session-state/s-1/events.jsonl",
    );
    expect(copilotTranscriptPath("s-1", { HOME: "/h" })).toBe(
      "/h/.copilot/session-state/s-1/events.jsonl",
    );
    expect(copilotTranscriptPath("../s", { COPILOT_HOME: "/c" })).toBeNull();
  });

  it("maps Copilot's statuses and keeps a blocked item's reason", () => {
    expect(
      todosFromRows([
        { id: "a", title: "A", status: "done" },
        { id: "b", title: "B", description: "waits on review", status: "blocked" },
      ]),
    ).toEqual([
      { id: "a", content: "A", status: "completed" },
      { id: "b", content: "B", status: "blocked", blockedReason: "waits on review" },
    ]);
  });
});
