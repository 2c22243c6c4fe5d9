import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageText, type OpenAiServer } from "../support/openai-server.js";
import {
  type OpenCodeProject,
  type OpenCodeServer,
  type PluginHostProgram,
  prepareProject,
  startOpenCode,
  startTitledModel,
  stopsEarlyTwice,
  waitForDecision,
} from "./opencode-host.js";

/** The user copy's own close instruction: a nudge that carries it came from that copy. */
const USER_COPY = "USER COPY: close items with todowrite.";

/**
 * Ours in the user's plugin folder and the project's: the host loads both files, two plugins each
 * told of every event. Measured on OpenCode 1.18.33 before copies.ts: every idle decided twice
 * (`inject` by one copy, `skip:turn-not-safe` by the other). Now the project's copy decides alone.
 */
export function installedTwiceSuite(host: PluginHostProgram): void {
  let model: OpenAiServer;
  let project: OpenCodeProject;
  let opencode: OpenCodeServer;

  beforeAll(async () => {
    model = await startTitledModel();
    project = await prepareProject({
      host,
      modelBaseURL: model.baseURL,
      pluginOptions: { countdownMs: 200 },
      userPluginOptions: { closeInstruction: USER_COPY },
    });
    opencode = await startOpenCode(project);
  });

  afterAll(async () => {
    await opencode?.stop();
    await model?.close();
    project?.cleanup();
  });

  describe(`${host.title} with our plugin in both the user's and the project's folder`, () => {
    it("decides each idle once, with the project's copy", async () => {
      model.script(stopsEarlyTwice());
      const session = await opencode.createSession();
      await opencode.prompt(session, "Build the parser and its tests.");
      const log = await waitForDecision(project, opencode, session, "skip:no-incomplete-todos");
      expect(log).toEqual(["inject", "inject", "skip:no-incomplete-todos"]);
      expect(model.pending()).toBe(0);
      const prompts = model
        .chatRequests({ scripted: true })
        .map((r) => messageText(r.body.messages.at(-1)));
      const nudges = prompts.filter((p) => p.includes("Open todos remain"));
      expect(nudges).toHaveLength(2);
      expect(nudges.some((p) => p.includes(USER_COPY))).toBe(false);
    });
  });
}
