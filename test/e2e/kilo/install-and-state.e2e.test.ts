import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../../src/core/scope/scope.js";
import { scopePaths } from "../../../src/store/file/paths.js";
import {
  type OpenCodeProject,
  type OpenCodeServer,
  prepareProject,
  startOpenCode,
  waitForDecision,
} from "../opencode/opencode-host.js";
import { BUILT_CLI } from "../support/built-cli.js";
import { fileSnapshot } from "../support/file-snapshot.js";
import {
  type OpenAiServer,
  startOpenAiServer,
  textReply,
  toolCallReply,
} from "../support/openai-server.js";
import { KILO } from "./kilo-host.js";

describe("install kilo / uninstall kilo through the CLI", () => {
  it("a reinstall changes no byte, and uninstall restores every file byte for byte", () => {
    const project = mkdtempSync(join(tmpdir(), "tc-e2e-kilo-install-"));
    try {
      const cli = (...args: string[]) =>
        execFileSync(process.execPath, [BUILT_CLI, ...args], {
          cwd: project,
          env: { PATH: process.env.PATH ?? "", HOME: join(project, "home") },
          encoding: "utf8",
        });
      // The user's own config and another plugin, which must survive untouched.
      writeFileSync(join(project, "kilo.json"), '{ "plugin": ["some-plugin"] }\n');
      mkdirSync(join(project, ".kilo", "plugins"), { recursive: true });
      writeFileSync(join(project, ".kilo", "plugins", "mine.ts"), "export const Mine = 1;\n");
      const before = fileSnapshot(project);
      expect(cli("install", "kilo")).toContain("Added");
      const installed = fileSnapshot(project);
      expect(Object.keys(installed).sort()).toEqual(
        [...Object.keys(before), join(".kilo", "plugins", "todo-continuation.js")].sort(),
      );
      expect(cli("install", "kilo")).toContain("nothing changed");
      expect(fileSnapshot(project)).toEqual(installed);
      expect(cli("uninstall", "kilo")).toContain("Removed");
      expect(fileSnapshot(project)).toEqual(before);
      expect(cli("uninstall", "kilo")).toContain("nothing changed");
      expect(fileSnapshot(project)).toEqual(before);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});

describe("OpenCode plugin against the real Kilo: a corrupt state document", () => {
  let model: OpenAiServer;
  let project: OpenCodeProject;
  let kilo: OpenCodeServer;

  beforeAll(async () => {
    model = await startOpenAiServer({
      intercept: (request) =>
        JSON.stringify(request.body.messages[0]).includes("title generator")
          ? textReply("A title")
          : undefined,
      fallback: textReply("I have nothing more to add."),
    });
    project = await prepareProject({
      host: KILO,
      modelBaseURL: model.baseURL,
      pluginOptions: { limits: { maxAutoTurns: 3 }, countdownMs: 0 },
    });
    kilo = await startOpenCode(project);
  });

  afterAll(async () => {
    await kilo?.stop();
    await model?.close();
    project?.cleanup();
  });

  it("never nudges on a state it cannot read, and keeps the broken bytes", async () => {
    const todos = [{ content: "port the importer", status: "pending", priority: "high" }];
    const session = await kilo.createSession();
    const scope = resolveScope({ kind: "session", host: "opencode", sessionId: session })!;
    const statePath = scopePaths(join(project.storeDir, "todo"), scope).state;
    const garbage = "{ broken while the model answered";
    model.script([
      toolCallReply("todowrite", { todos }),
      textReply("Stopping here."),
      // The answer to the first nudge: the state breaks before it arrives.
      { text: "Still working.", before: async () => writeFileSync(statePath, garbage) },
    ]);
    await kilo.prompt(session, "Port the importer.");
    const log = await waitForDecision(project, kilo, session, "skip:state-unreadable");
    expect(log).toEqual(["inject", "skip:state-unreadable"]);
    // Nothing more comes: the nudge's answer was the last model request.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(model.chatRequests({ scripted: true })).toHaveLength(3);
    // The broken bytes are kept: in place, or in a `.corrupt` copy beside a rewritten state.
    const stateDir = join(statePath, "..");
    const kept = readdirSync(stateDir).filter(
      (name) => readFileSync(join(stateDir, name), "utf8") === garbage,
    );
    expect(kept).toHaveLength(1);
  });
});
