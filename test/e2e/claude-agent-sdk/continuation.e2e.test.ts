import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { todoContinuationHooks } from "../../../src/hosts/claude-agent-sdk/index.js";
import { closeInstructionFor } from "../../../src/hosts/claude-code/todos.js";
import {
  lastUserText,
  type MessagesBody,
  reply,
  text,
  toolUse,
  userTexts,
} from "../support/anthropic-server.js";
import { stopsEarlyTwice, todoWrite } from "../support/claude-scripts.js";
import {
  AGENT_SDK_OLDEST,
  AGENT_SDK_VERSION,
  onlySessionLog,
  readSession,
  resultOf,
  runSdk,
  sdkEnv,
  sdkQuery,
  sdkSuite,
  sessionIdOf,
} from "./harness.js";

const MARK = closeInstructionFor("todo-write");

/** Whether a request answers one of our blocks: its newest message carries the nudge. */
const answersNudge = (body: MessagesBody) => lastUserText(body).includes(MARK);
const mentionsNudge = (body: MessagesBody) => userTexts(body).some((t) => t.includes(MARK));

const suite = sdkSuite();

describe.each([AGENT_SDK_VERSION, AGENT_SDK_OLDEST])(
  "the Claude Agent SDK %s with todoContinuationHooks",
  (version) => {
    beforeAll(async () => {
      await sdkQuery(version);
    });
    /** One `query()` of this release to its end. */
    const runHere = (...args: Parameters<typeof runSdk>) =>
      runSdk(args[0], args[1], args[2], args[3], version);

    it("nudges a lazy stopper with open todos until its list is done", async () => {
      const model = await suite.serve(stopsEarlyTwice());
      const project = suite.project();
      const lines: string[] = [];
      const run = await runHere(project, sdkEnv(project, model, suite.trap()), "Do the work", {
        hooks: todoContinuationHooks({ log: (line) => lines.push(line) }),
      });
      expect(run.error, lines.join("\n")).toBeNull();
      const turns = model.turns();
      expect(turns.map(answersNudge), lines.join("\n")).toEqual([
        false,
        false,
        true,
        false,
        true,
        false,
      ]);
      const first = lastUserText(turns[2] as MessagesBody);
      expect(first).toContain("Parse the config");
      expect(first).toContain("Write the tests");
      expect(resultOf(run.messages)?.result).toBe("Both items are done.");
      const { snapshot, log } = await readSession(project, sessionIdOf(run.messages));
      expect(snapshot.todos.todos.map((t) => t.status)).toEqual(["completed", "completed"]);
      expect(log.map((e) => e.reason ?? e.action)).toEqual([
        "inject",
        "inject",
        "no-incomplete-todos",
      ]);
      expect(lines.filter((l) => l.includes("stop blocked with nudge"))).toHaveLength(2);
    });

    it("lets an agent that never progresses go after one nudge, with the reason logged", async () => {
      const model = await suite.serve([
        todoWrite(["Migrate the database", "in_progress"], ["Update the docs", "pending"]),
        reply(text("Stopping for now.")),
        reply(text("Still stopping.")),
        reply(text("Stopping again.")),
      ]);
      const project = suite.project();
      const run = await runHere(project, sdkEnv(project, model, suite.trap()), "Migrate", {
        hooks: todoContinuationHooks({ log: () => undefined }),
      });
      expect(run.error).toBeNull();
      // The default preset's strict progress check: one nudge, then the stop goes through.
      expect(model.turns().map(answersNudge)).toEqual([false, false, true]);
      expect(resultOf(run.messages)?.result).toBe("Still stopping.");
      const { log } = await readSession(project, sessionIdOf(run.messages));
      expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "stagnation"]);
    });

    it("lets the agent stop when every item is done", async () => {
      const model = await suite.serve([
        todoWrite(["Fix the bug", "completed"], ["Add a test", "completed"]),
        reply(text("All done.")),
      ]);
      const project = suite.project();
      const run = await runHere(project, sdkEnv(project, model, suite.trap()), "Fix it", {
        hooks: todoContinuationHooks({ log: () => undefined }),
      });
      expect(run.error).toBeNull();
      expect(model.turns()).toHaveLength(2);
      expect(model.turns().some(mentionsNudge)).toBe(false);
      const { log } = await readSession(project, sessionIdOf(run.messages));
      expect(log.map((e) => e.reason)).toEqual(["no-incomplete-todos"]);
    });

    it("never nudges on a state it cannot read: the reason logged, the broken bytes kept", async () => {
      const garbage = "{ broken while the model answered";
      const project = suite.project();
      const stateDir = join(
        project.dir,
        ".claude",
        "todo-continuation",
        "todo",
        ".state",
        "session",
      );
      const model = await suite.serve(({ turn }) => {
        if (turn === 0)
          return todoWrite(["Port the importer", "in_progress"], ["Test it", "pending"]);
        if (turn === 1) return reply(text("Stopping here."));
        // The answer to the nudge: the session's state breaks before it arrives.
        if (turn === 2) {
          for (const name of readdirSync(stateDir).filter((n) => /\.json$/.test(n))) {
            writeFileSync(join(stateDir, name), garbage);
          }
        }
        return reply(text("Still working."));
      });
      const lines: string[] = [];
      const run = await runHere(project, sdkEnv(project, model, suite.trap()), "Port it", {
        hooks: todoContinuationHooks({ log: (line) => lines.push(line) }),
      });
      expect(run.error, lines.join("\n")).toBeNull();
      expect(model.turns().map(answersNudge)).toEqual([false, false, true]);
      expect(resultOf(run.messages)?.result).toBe("Still working.");
      // Read by the log alone: the session's state is the broken file.
      const log = await onlySessionLog(project);
      expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "state-unreadable"]);
      expect(lines.join("\n")).toMatch(/stop allowed \(state-unreadable\)/);
      const kept = readdirSync(stateDir).filter(
        (name) => readFileSync(join(stateDir, name), "utf8") === garbage,
      );
      expect(kept).toHaveLength(1);
    });

    it("respects the user's abort: no nudge, no request after it", async () => {
      let release: () => void = () => undefined;
      const hung = new Promise<void>((resolve) => {
        release = resolve;
      });
      const model = await suite.serve(({ turn }) => {
        if (turn === 0)
          return todoWrite(["Build the index", "in_progress"], ["Query it", "pending"]);
        if (turn === 1) {
          release();
          return { content: [text("Thinking...")], hang: true };
        }
        return reply(text("Should never be asked."));
      });
      const project = suite.project();
      const lines: string[] = [];
      const abort = new AbortController();
      const running = runHere(project, sdkEnv(project, model, suite.trap()), "Index and query", {
        abortController: abort,
        hooks: todoContinuationHooks({ log: (line) => lines.push(line) }),
      });
      await hung;
      abort.abort();
      const run = await running;
      // The SDK ends the Claude Code process: the query rejects, and no Stop runs at all.
      expect(String(run.error)).toContain("aborted by user");
      expect(lines).toEqual([]);
      // Give a late hook or request the time to show itself.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(model.turns()).toHaveLength(2);
      expect(model.turns().some(mentionsNudge)).toBe(false);
      expect(lines.filter((l) => l.includes("stop blocked"))).toEqual([]);
      const sessionId = sessionIdOf(run.messages);
      const { snapshot, log } = await readSession(project, sessionId);
      expect(snapshot.todos.todos).toHaveLength(2);
      expect(log.filter((e) => e.action === "inject")).toEqual([]);
    });
  },
);

// The Task tools as the pinned release offers them: Claude Code 2.0.74 (the oldest SDK's) has
// none, and 2.1.141 (SDK 0.2.141) keeps them off in SDK runs unless CLAUDE_CODE_ENABLE_TASKS=1.
describe(`the Claude Agent SDK ${AGENT_SDK_VERSION} with todoContinuationHooks and the Task tools`, () => {
  it("follows the Task tools by id, reading their folder through the env given to query()", async () => {
    const model = await suite.serve([
      reply(toolUse("TaskCreate", { subject: "Add the endpoint", description: "GET /health" })),
      reply(toolUse("TaskCreate", { subject: "Remove the old route", description: "it is dead" })),
      reply(toolUse("TaskUpdate", { taskId: "1", status: "in_progress" })),
      reply(text("The endpoint is under way.")),
      reply(toolUse("TaskUpdate", { taskId: "1", status: "completed" })),
      reply(toolUse("TaskUpdate", { taskId: "2", status: "deleted" })),
      reply(text("Done: the endpoint exists and the old route needed no change.")),
    ]);
    const project = suite.project();
    const env = sdkEnv(project, model, suite.trap(), "tasks");
    const lines: string[] = [];
    const run = await runSdk(project, env, "Add a health check", {
      hooks: todoContinuationHooks({ env, log: (line) => lines.push(line) }),
    });
    expect(run.error, lines.join("\n")).toBeNull();
    const tasksMark = closeInstructionFor("tasks");
    const turns = model.turns();
    expect(turns.map((t) => lastUserText(t).includes(tasksMark))).toEqual([
      false,
      false,
      false,
      false,
      true,
      false,
      false,
    ]);
    const nudge = lastUserText(turns[4] as MessagesBody);
    expect(nudge).toContain("[1] Add the endpoint");
    expect(nudge).toContain("[2] Remove the old route");
    const { snapshot, log } = await readSession(project, sessionIdOf(run.messages));
    expect(snapshot.todos.todos).toEqual([
      { id: "1", content: "Add the endpoint", status: "completed" },
    ]);
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "no-incomplete-todos"]);
  });
});
