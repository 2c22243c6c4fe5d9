import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
const sockets: string[] = [];
const scratchDirs: string[] = [];
afterAll(async () => {
  for (const socket of sockets) {
    try {
      execFileSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" });
    } catch {
      // Already gone.
    }
  }
  for (const s of servers) await s.close();
  for (const p of projects) p.cleanup();
  for (const d of scratchDirs) rmSync(d, { recursive: true, force: true });
});

const hasTmux = (() => {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean, timeoutMs: number, screen: () => string) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${screen()}`);
}

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
    const socket = `tc-gemini-${process.pid}`;
    sockets.push(socket);
    const env = {
      HOME: project.home,
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      TERM: "xterm-256color",
      GOOGLE_GEMINI_BASE_URL: gemini.url,
      GEMINI_API_KEY: "test-key",
      TODO_CONTINUATION_GEMINI_CHILDREN: project.childRoot,
    };
    const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    execFileSync("tmux", [
      "-L",
      socket,
      "new-session",
      "-d",
      "-s",
      "tui",
      "-x",
      "160",
      "-y",
      "50",
      "-c",
      project.dir,
      "env",
      "-i",
      ...envArgs,
      geminiBin(),
      "--approval-mode",
      "yolo",
    ]);
    const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args]).toString();
    const screen = () => tmux("capture-pane", "-p", "-t", "tui");
    await until("the prompt", () => /Type your message/i.test(screen()), 90_000, screen);
    tmux("send-keys", "-t", "tui", "-l", "Build the converter.");
    // Typed text arriving at once reads as a paste; Enter is pressed until the prompt is sent.
    for (let tries = 0; tries < 10 && gemini.turns().length === 0; tries++) {
      await sleep(1_500);
      tmux("send-keys", "-t", "tui", "Enter");
      await sleep(1_500);
    }
    await until("the hanging call", () => gemini.turns().length >= 4, 120_000, screen);
    await sleep(1_000);
    tmux("send-keys", "-t", "tui", "Escape");
    // The CLI's own "[System: ...]" follow-up is a model call; give it and its hooks time.
    await until("the follow-up call", () => gemini.turns().length >= 5, 60_000, screen);
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
