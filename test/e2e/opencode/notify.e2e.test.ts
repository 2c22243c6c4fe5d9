import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Received,
  startReceiver,
  waitFor,
} from "../../../src/notify/test-support/receiver.js";
import { BUILT_CLI } from "../support/built-cli.js";
import { type OpenAiServer, textReply, toolCallReply } from "../support/openai-server.js";
import {
  type OpenCodeProject,
  type OpenCodeServer,
  pluginLog,
  prepareProject,
  startOpenCode,
  startTitledModel,
  waitForDecision,
} from "./opencode-host.js";

let model: OpenAiServer;
let project: OpenCodeProject;
let opencode: OpenCodeServer;
let receiver: { url: string; received: Received[]; close(): Promise<void> };

const todo = (content: string, status: string) => ({ content, status, priority: "high" });
const write = (...todos: ReturnType<typeof todo>[]) => toolCallReply("todowrite", { todos });

beforeAll(async () => {
  receiver = await startReceiver();
  model = await startTitledModel();
  project = await prepareProject({
    modelBaseURL: model.baseURL,
    pluginOptions: { countdownMs: 0 },
  });
  writeFileSync(
    join(project.project, "todo-continuation.config.json"),
    `${JSON.stringify({ limits: { maxAutoTurns: 1 }, notify: { webhook: receiver.url } })}\n`,
  );
  execFileSync(process.execPath, [BUILT_CLI, "trust"], {
    cwd: project.project,
    env: { ...project.env, PATH: process.env.PATH ?? "" },
  });
  opencode = await startOpenCode(project);
});

afterAll(async () => {
  await opencode?.stop();
  await model?.close();
  await receiver?.close();
  project?.cleanup();
});

describe("OpenCode plugin notifications, against the real OpenCode", () => {
  it("a run out of budget delivers exactly one out-of-budget to a local HTTP server", async () => {
    model.script([
      write(todo("parse the config", "in_progress"), todo("write the tests", "pending")),
      textReply("Pausing here."),
      write(todo("parse the config", "completed"), todo("write the tests", "in_progress")),
      textReply("Pausing again."),
    ]);
    const session = await opencode.createSession();
    await opencode.prompt(session, "Do the work.");
    const log = await waitForDecision(project, opencode, session, "skip:max-auto-turns");
    expect(log).toEqual(["inject", "skip:max-auto-turns"]);
    await waitFor(() => receiver.received.length > 0, 15_000).catch(() => {
      throw new Error(`no notification arrived\n${pluginLog(opencode)}`);
    });
    // Later idles of the same episode (OpenCode sends more than one) send nothing more.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(receiver.received).toHaveLength(1);
    const payload = JSON.parse(receiver.received[0]?.body ?? "");
    expect(payload).toMatchObject({
      event: "out-of-budget",
      reason: "max-auto-turns",
      host: "opencode",
      projectDir: project.project,
      limit: { name: "maxAutoTurns", max: 1, used: 1 },
      counts: { open: 1, completed: 1, total: 2 },
    });
    expect(readFileSync(join(project.storeDir, "notify.log"), "utf8")).toContain('"ok":true');
  });
});
