import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import {
  answer,
  call,
  type GeminiServer,
  say,
  startGeminiServer,
} from "../support/gemini-server.js";
import { hookServerEnv } from "../support/hook-server-setup.js";
import { hasTmux, startTui, type Tui } from "../support/tmux.js";
import {
  type GeminiProject,
  geminiBin,
  isNudge,
  makeProject,
  nudgeCount,
  ourCli,
  storedState,
} from "./gemini-world.js";

/**
 * The interactive Gemini CLI 0.61.0 under tmux, against the scripted model
 * server: the user presses Esc while the model answers a tool's response,
 * after a nudge made the agent work its list. What AfterAgent carries then
 * is recorded by a second hook that copies its input to a file.
 */

const projects: GeminiProject[] = [];
const servers: GeminiServer[] = [];
const tuis: Tui[] = [];
const scratchDirs: string[] = [];
afterAll(async () => {
  for (const tui of tuis) await tui.kill();
  for (const s of servers) await s.close();
  for (const p of projects) p.cleanup();
  for (const d of scratchDirs) rmSync(d, { recursive: true, force: true });
});

const todo = (description: string, status: string) => ({ description, status });

describe.runIf(hasTmux)("Gemini CLI 0.61.0, interactive: Esc after a nudge", () => {
  it("records the cancel: no second nudge, and none after the CLI's own follow-up", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "gem-tui-"));
    scratchDirs.push(scratch);
    const payloads = join(scratch, "after-agent-payloads.jsonl");
    const project = makeProject({
      extra: {
        hooks: {
          AfterAgent: [
            {
              hooks: [
                {
                  type: "command",
                  name: "payload-copy",
                  command: `cat >> '${payloads}'; echo >> '${payloads}'; echo '{}'`,
                },
              ],
            },
          ],
        },
      },
    });
    projects.push(project);
    const install = await ourCli(project, ["install", "gemini", "--project"]);
    expect(install.code, install.stderr).toBe(0);
    const gemini = await startGeminiServer({
      script: (c) => {
        if (c.turn === 0) {
          return answer(
            call("write_todos", {
              todos: [todo("Parse the input", "in_progress"), todo("Emit the output", "pending")],
            }),
          );
        }
        if (c.turn === 1) return answer(say("I stop here."));
        if (c.turn === 2) {
          // The nudge: the agent works its list...
          return answer(
            call("write_todos", {
              todos: [todo("Parse the input", "completed"), todo("Emit the output", "in_progress")],
            }),
          );
        }
        // ...and the user presses Esc while the model answers the tool's response.
        if (c.turn === 3) return { parts: [], hang: true };
        return answer(say("Parse is done; Emit is next."));
      },
    });
    servers.push(gemini);
    const env = {
      HOME: project.home,
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...hookServerEnv(),
      TERM: "xterm-256color",
      GOOGLE_GEMINI_BASE_URL: gemini.url,
      GEMINI_API_KEY: "test-key",
      TODO_CONTINUATION_GEMINI_CHILDREN: project.childRoot,
    };
    const tui = startTui({
      socket: `tc-gemini-${process.pid}`,
      cwd: project.dir,
      env,
      argv: [geminiBin(), "--approval-mode", "yolo"],
    });
    tuis.push(tui);
    await tui.until("the prompt", () => /Type your message/i.test(tui.screen()), 90_000);
    await tui.submit("Build the converter.", () => gemini.turns().length > 0);
    await tui.until("the hanging call", () => gemini.turns().length >= 4, 120_000);
    await sleep(1_000);
    tui.keys("Escape");
    // The CLI's own "[System: ...]" follow-up is a model call; give it and its hooks time.
    await tui.until("the follow-up call", () => gemini.turns().length >= 5, 60_000);
    await sleep(8_000);
    const events = readFileSync(payloads, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map(
        (l) =>
          JSON.parse(l) as {
            session_id: string;
            prompt_response: string;
            stop_hook_active: boolean;
          },
      );
    console.log(
      "AfterAgent payloads:",
      JSON.stringify(events.map((e) => [e.prompt_response, e.stop_hook_active])),
    );
    console.log(
      "model calls:",
      gemini.turns().map((c) => c.lastUserText.slice(0, 60)),
    );
    // The call after the cancel is the CLI's own follow-up, not a nudge of ours.
    const afterCancel = JSON.stringify(gemini.turns()[4]?.body.contents ?? []);
    console.log("the call after the cancel carries:", afterCancel.slice(-400));
    expect(afterCancel).toContain("[System:");
    const sessionId = events[0]?.session_id ?? "";
    const { log } = await storedState(project, sessionId);
    console.log("decisions:", JSON.stringify(log.map((e) => e.reason ?? e.action)));
    // One nudge reached the model, and only one: the cancel and the follow-up were let through.
    expect(nudgeCount(gemini.turns())).toBe(1);
    expect(gemini.turns().filter((c) => !isNudge(c)).length).toBeGreaterThanOrEqual(4);
    expect(log.filter((e) => e.action === "inject")).toHaveLength(1);
    expect(log.at(-1)).toMatchObject({ action: "skip", reason: "user-abort-blocked" });
    expect(existsSync(join(project.dir, ".gemini", "settings.json"))).toBe(true);
  }, 300_000);
});
