import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ChatRequest,
  messageText,
  type ScriptedReply,
  textReply,
} from "../support/openai-server.js";
import { hasTmux, startTui, type Tui } from "../support/tmux.js";
import {
  answersNudge,
  mentionsNudge,
  qwenBin,
  qwenEnv,
  qwenSuite,
  readSession,
  todoWrite,
} from "./harness.js";

/**
 * The interactive Qwen Code 0.24.4 under tmux, against the scripted model
 * server, with our hooks installed by `install qwen`: the user presses Esc
 * while the model answers (twice in one session), or while the Stop hooks
 * run. A second hook on every event we could be sent copies its input to a
 * file, so the test sees what Qwen fired around each Esc.
 */

const suite = qwenSuite();
const tuis: Tui[] = [];
// Registered after the suite's, so it runs first: the TUI ends before its server and project go.
afterEach(async () => {
  for (const t of tuis.splice(0)) await t.kill();
});

const CAPTURED = [
  "SessionStart",
  "SessionEnd",
  "UserPromptSubmit",
  "PostToolUse",
  "PostToolUseFailure",
  "Stop",
  "StopFailure",
  "SubagentStop",
  "Notification",
];

interface Captured {
  hook_event_name: string;
  session_id: string;
  prompt?: string;
  submitted_prompt?: string;
  stop_hook_active?: boolean;
  last_assistant_message?: string;
  tool_name?: string;
  [key: string]: unknown;
}

const lastText = (r: ChatRequest) => messageText(r.body.messages.at(-1));

/**
 * Model calls the TUI makes beside the conversation: the follow-up
 * suggestion after every turn (Esc included) and the managed-memory agent.
 */
const isSideQuery = (r: ChatRequest) =>
  lastText(r).startsWith("[SUGGESTION MODE") ||
  r.body.messages.some((m) => messageText(m).includes("Managed memory has TWO directories"));

/** The input box's line: `*` then the text typed (or a placeholder, or a suggestion). */
const inputLine = (screen: string) => /^\* (.*)$/m.exec(screen)?.[1] ?? "";

/**
 * The TUI in a fresh project with our hooks installed, the scripted model
 * answering `replies` in order (side queries apart), and a hook on every
 * event in CAPTURED copying its input to a file. `slowStop` makes that
 * copy hook sleep on Stop while the file it names exists.
 */
async function session(replies: ScriptedReply[], slowStop?: string) {
  const model = await suite.serve((request) =>
    isSideQuery(request) ? textReply("Show me the list") : (replies.shift() ?? textReply("Done.")),
  );
  const project = suite.project();
  const payloads = join(project.root, "hook-payloads.jsonl");
  const userSettings = join(project.home, ".qwen", "settings.json");
  const settings = JSON.parse(readFileSync(userSettings, "utf8"));
  const copy = `cat >> '${payloads}'; echo >> '${payloads}'`;
  const slow = slowStop === undefined ? "" : `; if [ -e '${slowStop}' ]; then sleep 120; fi`;
  settings.hooks = Object.fromEntries(
    CAPTURED.map((event) => [
      event,
      [{ hooks: [{ type: "command", command: event === "Stop" ? copy + slow : copy }] }],
    ]),
  );
  writeFileSync(userSettings, JSON.stringify(settings));
  const events = (): Captured[] =>
    existsSync(payloads)
      ? readFileSync(payloads, "utf8")
          .split("\n")
          .flatMap((l) => {
            // A line a hook is still writing is read on a later poll.
            try {
              return [JSON.parse(l) as Captured];
            } catch {
              return [];
            }
          })
      : [];
  const tui = startTui({
    socket: `tc-qwen-${process.pid}-${Date.now()}`,
    cwd: project.dir,
    env: { ...qwenEnv(project, model, suite.trap()), TERM: "xterm-256color" },
    argv: [qwenBin(), "--approval-mode", "yolo"],
  });
  tuis.push(tui);
  const requests = () => model.chatRequests().filter((r) => !isSideQuery(r));
  const submitted = (text: string) => () =>
    events().some((e) => e.hook_event_name === "UserPromptSubmit" && e.submitted_prompt === text);
  const sessionId = () => events()[0]?.session_id ?? "";
  const decisions = async () =>
    sessionId() === ""
      ? []
      : (await readSession(project, sessionId())).log.map((e) => e.reason ?? e.action);
  /** The events between `from` and the user's prompt `text` (Qwen's own, after an Esc). */
  const between = (from: number, text: string) => {
    const all = events();
    const to = all.findIndex(
      (e) => e.hook_event_name === "UserPromptSubmit" && e.submitted_prompt === text,
    );
    return all.slice(from, to).map((e) => e.hook_event_name);
  };
  const report = async () =>
    console.log(
      "main calls:",
      JSON.stringify(requests().map((r) => lastText(r).slice(0, 50))),
      "\nside calls:",
      model.chatRequests().length - requests().length,
      "\nhook events:",
      JSON.stringify(
        events().map((e) => [
          e.hook_event_name,
          e.submitted_prompt ?? e.prompt?.slice(0, 30) ?? e.tool_name ?? e.stop_hook_active,
        ]),
      ),
      "\ndecisions:",
      JSON.stringify(await decisions()),
      "\nscreen:\n",
      tui.screen(),
    );
  /** Qwen's idle notification after the last turn: its hooks have all run. */
  const idle = () =>
    tui.until(
      "the idle notification",
      () => events().at(-1)?.hook_event_name === "Notification",
      60_000,
    );
  /** Presses Esc while a turn runs and waits for Qwen's notice; returns the event count before. */
  const esc = async () => {
    await tui.until("the turn in progress", () => /esc to cancel/i.test(tui.screen()), 60_000);
    const mark = events().length;
    tui.keys("Escape");
    await tui.until("the cancel notice", () => /Request cancelled/.test(tui.screen()), 60_000);
    return mark;
  };
  /** Waits for the n-th main call to stall, presses Esc, and checks Qwen dropped that call. */
  const escOn = async (n: number) => {
    await tui.until(`main call ${n}`, () => requests().length >= n, 240_000);
    const stalled = requests()[n - 1] as ChatRequest;
    expect(stalled.reply.stall).toBe(true);
    const mark = await esc();
    await tui.until("the dropped call", () => stalled.abandonedAt !== undefined, 60_000);
    return mark;
  };
  await tui.until("the prompt", () => /Type your message/i.test(tui.screen()), 120_000);
  return { tui, events, requests, submitted, decisions, between, report, esc, escOn, idle };
}

describe.runIf(hasTmux)("Qwen Code 0.24.4, interactive: Esc mid-turn", () => {
  it("runs no Stop after Esc; the next prompt is the user's, and an untouched list is not nudged", async () => {
    const replies: ScriptedReply[] = [
      todoWrite(["Parse", "in_progress"], ["Convert", "pending"], ["Emit", "pending"]),
      textReply("I stop here."),
      // Our nudge: the agent works its list...
      todoWrite(["Parse", "completed"], ["Convert", "in_progress"], ["Emit", "pending"]),
      // ...and the user presses Esc while the model answers the tool's result.
      { text: "Working on Convert", stall: true },
      textReply("Parse is done; Convert is next."),
      // The user's next prompt: the agent moves the list, stops, and is nudged again...
      todoWrite(["Parse", "completed"], ["Convert", "completed"], ["Emit", "in_progress"]),
      textReply("Convert is done."),
      // ...and the second Esc lands on the nudge's own call.
      { text: "Working on Emit", stall: true },
      textReply("Emit is next."),
    ];
    const { tui, events, requests, submitted, decisions, between, report, escOn, idle } =
      await session(replies);
    try {
      await tui.submit("Build the converter.", submitted("Build the converter."));

      // Esc 1: after a nudge and a todo_write, while the model answers the tool's result.
      const esc1 = await escOn(4);
      // A cancelled turn that ran tools does not put the prompt back in the input (one that
      // ran none does); at most the follow-up suggestion shows there, in grey.
      expect(inputLine(tui.screen())).not.toContain("Build the converter.");
      await tui.submit("What is the status?", submitted("What is the status?"));
      await tui.until("the stop after it", async () => (await decisions()).length >= 2, 180_000);
      // Nothing between the Esc and the user's prompt but Qwen's idle notification: no Stop,
      // no prompt of Qwen's own, no model call.
      expect(between(esc1, "What is the status?").filter((n) => n !== "Notification")).toEqual([]);
      expect(lastText(requests()[4] as ChatRequest)).toBe("What is the status?");
      expect(await decisions()).toEqual(["inject", "list-unchanged-since-user"]);

      // The user asks for more: the agent moves the list, so nudges resume.
      await tui.submit("Carry on with the list.", submitted("Carry on with the list."));
      // Esc 2: on the nudge's own call.
      const esc2 = await escOn(8);
      expect(answersNudge(requests()[7] as ChatRequest)).toBe(true);
      expect(inputLine(tui.screen())).not.toContain("Carry on with the list.");
      await tui.submit("Where are we?", submitted("Where are we?"));
      await tui.until("the stop after it", async () => (await decisions()).length >= 4, 180_000);
      expect(between(esc2, "Where are we?").filter((n) => n !== "Notification")).toEqual([]);
      expect(lastText(requests()[8] as ChatRequest)).toBe("Where are we?");
      await idle();
    } finally {
      await report();
    }
    expect(await decisions()).toEqual([
      "inject",
      "list-unchanged-since-user",
      "inject",
      "list-unchanged-since-user",
    ]);
    // Two nudges reached the model, one per episode that moved its list; none after an Esc.
    expect(requests().filter(answersNudge)).toHaveLength(2);
    const stops = events().filter((e) => e.hook_event_name === "Stop");
    expect(stops.map((e) => e.stop_hook_active)).toEqual([false, false, false, false]);
    // Every prompt Qwen counted as a person's was one the test typed.
    expect(
      events()
        .filter((e) => e.submitted_prompt !== undefined)
        .map((e) => e.submitted_prompt),
    ).toEqual([
      "Build the converter.",
      "What is the status?",
      "Carry on with the list.",
      "Where are we?",
    ]);
  }, 900_000);

  it("drops our block when Esc lands while the Stop hooks run, and nothing is nudged after", async () => {
    const slowDir = mkdtempSync(join(tmpdir(), "tc-qwen-slow-"));
    const slow = join(slowDir, "slow");
    writeFileSync(slow, "");
    const replies: ScriptedReply[] = [
      todoWrite(["Parse", "in_progress"], ["Convert", "pending"]),
      textReply("I stop here."),
      textReply("Parse is in progress; Convert is next."),
    ];
    const { tui, events, requests, submitted, decisions, between, report, esc, idle } =
      await session(replies, slow);
    try {
      await tui.submit("Build the converter.", submitted("Build the converter."));
      // Our hook has decided and answered; the copy hook beside it still sleeps.
      await tui.until("our block", async () => (await decisions()).includes("inject"), 240_000);
      const started = Date.now();
      const mark = await esc();
      console.log(`Esc to the cancel notice: ${Date.now() - started} ms`);
      rmSync(slowDir, { recursive: true, force: true });
      await tui.submit("What is the status?", submitted("What is the status?"));
      await tui.until("the stop after it", async () => (await decisions()).length >= 2, 180_000);
      // The Stop had fired before the Esc; after it, nothing but the idle notification.
      expect(between(mark, "What is the status?").filter((n) => n !== "Notification")).toEqual([]);
      await idle();
    } finally {
      await report();
    }
    // Qwen dropped the block: the model never saw the nudge, and the next call is the user's.
    expect(requests().map((r) => lastText(r).slice(0, 19))).toEqual([
      expect.any(String),
      expect.stringContaining("Todos have been"),
      "What is the status?",
    ]);
    expect(requests().some(mentionsNudge)).toBe(false);
    const stops = events().filter((e) => e.hook_event_name === "Stop");
    expect(stops.map((e) => [e.last_assistant_message, e.stop_hook_active])).toEqual([
      ["I stop here.", false],
      ["Parse is in progress; Convert is next.", false],
    ]);
    // The dropped nudge is logged as given; the user's prompt then starts a new episode.
    expect(await decisions()).toEqual(["inject", "list-unchanged-since-user"]);
  }, 900_000);
});
