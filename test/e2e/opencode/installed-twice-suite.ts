import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageText, type OpenAiServer } from "../support/openai-server.js";
import { packageCopy } from "../support/package-copy.js";
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
  variant(host, "one package");
  // The user's from a global copy of the package: the plugins meet through `globalThis` all the same.
  variant(host, "two copies of the package", true);
}

function variant(host: PluginHostProgram, what: string, globalCopy = false): void {
  describe(`${host.title} with our plugin in both the user's and the project's folder (${what})`, () => {
    let model: OpenAiServer;
    let project: OpenCodeProject;
    let opencode: OpenCodeServer;
    let copies: string | undefined;

    beforeAll(async () => {
      model = await startTitledModel();
      copies = globalCopy ? mkdtempSync(join(tmpdir(), "tc-plugin-copies-")) : undefined;
      project = await prepareProject({
        host,
        modelBaseURL: model.baseURL,
        pluginOptions: { countdownMs: 200 },
        userPluginOptions: { closeInstruction: USER_COPY },
        // <copy>/dist/cli/main.js -> <copy>
        ...(copies !== undefined
          ? { userPackageRoot: resolve(packageCopy(copies), "../../..") }
          : {}),
      });
      opencode = await startOpenCode(project);
    });

    afterAll(async () => {
      await opencode?.stop();
      await model?.close();
      project?.cleanup();
      if (copies !== undefined) rmSync(copies, { recursive: true, force: true });
    });

    it("decides each idle once, with the project's copy", async () => {
      // The user's plugin file loads the copy it was installed from.
      const home = join(project.root, "home");
      const userPlugins = readdirSync(home, { recursive: true })
        .map(String)
        .filter((f) => /plugins?\/[^/]+\.(js|ts)$/.test(f))
        .map((f) => readFileSync(join(home, f), "utf8"));
      expect(userPlugins).toHaveLength(1);
      expect(userPlugins[0]?.includes("global-copy")).toBe(globalCopy);
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
