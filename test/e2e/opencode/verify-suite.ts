import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_CLI } from "../support/built-cli.js";
import {
  type ChatRequest,
  messageText,
  type OpenAiServer,
  startOpenAiServer,
  textReply,
  toolCallReply,
} from "../support/openai-server.js";
import {
  decisions as decisionsOf,
  type OpenCodeProject,
  type OpenCodeServer,
  type PluginHostProgram,
  pluginLog as pluginLogOf,
  prepareProject,
  startOpenCode,
  waitForDecision as waitForDecisionOf,
} from "./opencode-host.js";

/** The project config's `verify` through the plugin, against the real program. */
export function verifySuite(host: PluginHostProgram): void {
  let model: OpenAiServer;
  let project: OpenCodeProject;
  let opencode: OpenCodeServer;
  let runsFile: string;

  const todo = (content: string, status: string) => ({ content, status, priority: "high" });
  const write = (...todos: ReturnType<typeof todo>[]) => toolCallReply("todowrite", { todos });

  function promptOf(request: ChatRequest): string | null {
    const last = request.body.messages.at(-1);
    return last?.role === "user" ? messageText(last) : null;
  }

  const decisions = (sessionId: string) => decisionsOf(project, sessionId);
  const pluginLog = () => pluginLogOf(opencode);
  const waitForDecision = (sessionId: string, last: string) =>
    waitForDecisionOf(project, opencode, sessionId, last);

  const runs = () =>
    existsSync(runsFile) ? readFileSync(runsFile, "utf8").split("\n").filter(Boolean).length : 0;

  beforeAll(async () => {
    model = await startOpenAiServer({
      intercept: (request) =>
        messageText(request.body.messages[0]).includes("title generator")
          ? textReply("A title")
          : undefined,
      fallback: textReply("I have nothing more to add."),
    });
    project = await prepareProject({
      host,
      modelBaseURL: model.baseURL,
      pluginOptions: { limits: { maxAutoTurns: 3 }, countdownMs: 0 },
    });
    runsFile = join(project.storeDir, "runs.txt");
    // A check that fails until DONE exists; the file is not trusted yet.
    writeFileSync(
      join(project.project, "todo-continuation.config.json"),
      `${JSON.stringify({
        verify: {
          command: `echo run >> ${runsFile}; test -e DONE || { echo "DONE is missing"; exit 1; }`,
        },
      })}\n`,
    );
    // OpenCode denies a subagent `todowrite` unless its agent's permissions name it: allow it for
    // `general`, so the subagent test's child session has a list of its own.
    const configFile = join(project.project, host.configFile);
    const config = JSON.parse(readFileSync(configFile, "utf8"));
    config.agent = { general: { permission: { todowrite: "allow" } } };
    writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
    opencode = await startOpenCode(project);
  });

  afterAll(async () => {
    await opencode?.stop();
    await model?.close();
    project?.cleanup();
  });

  describe(`OpenCode plugin with a project's check, against the real ${host.title}`, () => {
    it("an untrusted config runs nothing, and the user is told what to run", async () => {
      model.script([write(todo("create DONE", "completed")), textReply("All done.")]);
      const session = await opencode.createSession();
      await opencode.prompt(session, "Create the DONE file.");
      const log = await waitForDecision(session, "skip:no-incomplete-todos");
      expect(log).toEqual(["skip:no-incomplete-todos"]);
      expect(runs()).toBe(0);
      expect(model.chatRequests({ scripted: true })).toHaveLength(2);
      const toast = opencode
        .events()
        .find(
          (e) =>
            e.type === "tui.toast.show" && JSON.stringify(e).includes("todo-continuation trust"),
        );
      expect(toast, pluginLog()).toBeDefined();
      expect(opencode.output()).toContain("is not trusted; run `todo-continuation trust`");
    });

    it("once trusted (no restart): a false finish gets the failing check, the agent creates the file, the next idle is verified", async () => {
      execFileSync(process.execPath, [BUILT_CLI, "trust"], {
        cwd: project.project,
        env: { ...project.env, PATH: process.env.PATH ?? "" },
      });
      model.clearRequests();
      const done = join(project.project, "DONE");
      model.script([
        write(todo("create DONE", "completed")), // marked done without doing it
        textReply("All done."),
        toolCallReply("write", { filePath: done, content: "yes\n" }),
        textReply("Created DONE."),
      ]);
      const session = await opencode.createSession();
      await opencode.prompt(session, "Create the DONE file.");
      const log = await waitForDecision(session, "skip:verified");
      expect(log).toEqual(["inject", "skip:verified"]);
      expect(existsSync(done)).toBe(true);
      const nudge = model
        .chatRequests({ scripted: true })
        .map(promptOf)
        .find((p) => p?.includes("the project's check fails"));
      expect(nudge).toContain("DONE is missing");
      expect(nudge).toContain("exit code 1");
      const entries = await decisions(session);
      expect(entries[0]?.note).toMatch(/^check failed: exit 1/);
      expect(entries[1]?.note).toMatch(/^verified in /);
      expect(runs()).toBe(2);
      expect(model.pending()).toBe(0);
    });

    it("a trusted check that runs out of time never nudges and is logged verify-timed-out", async () => {
      writeFileSync(
        join(project.project, "todo-continuation.config.json"),
        `${JSON.stringify({ verify: { command: "sleep 30", timeoutMs: 1000 } })}\n`,
      );
      execFileSync(process.execPath, [BUILT_CLI, "trust"], {
        cwd: project.project,
        env: { ...project.env, PATH: process.env.PATH ?? "" },
      });
      model.clearRequests();
      model.script([write(todo("build it", "completed")), textReply("Built.")]);
      const session = await opencode.createSession();
      const started = Date.now();
      await opencode.prompt(session, "Build it.");
      const log = await waitForDecision(session, "skip:verify-timed-out");
      expect(Date.now() - started).toBeLessThan(25_000);
      expect(log).toEqual(["skip:verify-timed-out"]);
      expect(model.chatRequests({ scripted: true })).toHaveLength(2);
      expect(model.pending()).toBe(0);
    });

    it("a subagent's (child session's) idle never runs the check; the parent's finished list does", async () => {
      writeFileSync(
        join(project.project, "todo-continuation.config.json"),
        `${JSON.stringify({ verify: { command: `echo run >> ${runsFile}; exit 1` } })}\n`,
      );
      execFileSync(process.execPath, [BUILT_CLI, "trust"], {
        cwd: project.project,
        env: { ...project.env, PATH: process.env.PATH ?? "" },
      });
      const before = runs();
      const HELPER = "HELPER: survey the logs";
      const isHelper = (r: ChatRequest) =>
        r.body.messages.some((m) => m.role === "user" && messageText(m).includes(HELPER));
      let parent = 0;
      let helper = 0;
      let runsWhenHelperDone = -1;
      model.clearRequests();
      model.script((request) => {
        if (isHelper(request)) {
          helper++;
          return helper === 1
            ? write(todo("the helper's own item", "completed"))
            : textReply("Helper finished.");
        }
        parent++;
        switch (parent) {
          case 1:
            return write(todo("review the survey", "in_progress"));
          case 2:
            return toolCallReply("task", {
              description: "survey",
              prompt: HELPER,
              subagent_type: "general",
            });
          case 3:
            // The task returned: the child session has gone idle, and no check ran for it.
            runsWhenHelperDone = runs() - before;
            return write(todo("review the survey", "completed"));
          default:
            return textReply("Reviewed.");
        }
      });
      const session = await opencode.createSession();
      await opencode.prompt(session, "Survey and review.");
      // The parent's finished list ran the check; its answer to the nudge hit the same failure.
      const log = await waitForDecision(session, "skip:verify-unchanged-failure");
      expect(log).toEqual(["inject", "skip:verify-unchanged-failure"]);
      const helperRequests = model.chatRequests({ scripted: true }).filter(isHelper);
      expect(helperRequests).toHaveLength(2);
      expect(helperRequests[0]?.body.tools?.map((t) => t.function.name)).toContain("todowrite");
      // Its todowrite went through: the tool's answer is the stored list.
      const answered = helperRequests[1]?.body.messages.at(-1);
      expect(answered?.role).toBe("tool");
      expect(messageText(answered)).toContain("the helper's own item");
      const child = opencode
        .events()
        .map((e) => e.properties?.info as { id?: string; parentID?: string } | undefined)
        .find((info) => info?.parentID === session)?.id;
      expect(child, pluginLog()).toBeDefined();
      // The child finished a list of its own and went idle: nothing decided, nothing stored.
      expect(await decisions(child as string)).toEqual([]);
      expect(runsWhenHelperDone).toBe(0);
      expect(runs() - before).toBe(1);
    });
  });
}
