import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../../src/core/scope/scope.js";
import { createFileStore } from "../../../src/store/file/file-store.js";
import {
  type ChatRequest,
  errorReply,
  lastUserMessage,
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
  prepareProject,
  startOpenCode,
  stopsEarlyTwice,
  summary,
  waitFor,
  waitForDecision as waitForDecisionOf,
} from "./opencode-host.js";

/** Median milliseconds of `node -e ""`: how loaded the machine is right now. */
function bareNodeStartMs(): number {
  const runs = Array.from({ length: 5 }, () => {
    const start = performance.now();
    spawnSync(process.execPath, ["-e", ""]);
    return performance.now() - start;
  }).sort((a, b) => a - b);
  return runs[2] as number;
}

/** The heading of the default preset's nudge (inline-list style). */
const NUDGE_HEADING = "Open todos remain";
const COUNTDOWN_MS = 1_000;

/** The plugin's cases against the real program: OpenCode, or a fork that loads the same plugin. */
export function pluginHostSuite(host: PluginHostProgram): void {
  let model: OpenAiServer;
  let project: OpenCodeProject;
  let opencode: OpenCodeServer;

  const todo = (content: string, status: string) => ({ content, status, priority: "high" });
  const write = (...todos: ReturnType<typeof todo>[]) => toolCallReply("todowrite", { todos });

  /** The request's newest message, when it is a user message (a prompt, not a tool result). */
  function promptOf(request: ChatRequest): string | null {
    const last = request.body.messages.at(-1);
    return last?.role === "user" ? messageText(last) : null;
  }

  /** Model requests that answer one of our nudges. */
  function nudgeRequests(): ChatRequest[] {
    return model
      .chatRequests({ scripted: true })
      .filter((r) => promptOf(r)?.includes(NUDGE_HEADING));
  }

  function scopeOf(sessionId: string) {
    return resolveScope({ kind: "session", host: "opencode", sessionId })!;
  }

  const decisions = (sessionId: string) => decisionsOf(project, sessionId);
  const waitForDecision = (sessionId: string, last: string) =>
    waitForDecisionOf(project, opencode, sessionId, last);

  beforeAll(async () => {
    model = await startOpenAiServer({
      // OpenCode asks its small model for a session title; that request is not part of any script.
      intercept: (request) =>
        messageText(request.body.messages[0]).includes("title generator")
          ? textReply("A title")
          : undefined,
      fallback: textReply("I have nothing more to add."),
    });
    project = await prepareProject({
      host,
      modelBaseURL: model.baseURL,
      pluginOptions: {
        limits: { maxAutoTurns: 3, stagnationLimit: 0, errorBackoffMs: 300 },
        countdownMs: COUNTDOWN_MS,
      },
    });
    opencode = await startOpenCode(project);
  });

  afterAll(async () => {
    await opencode?.stop();
    await model?.close();
    project?.cleanup();
  });

  beforeEach(() => {
    model.clearRequests();
  });

  describe(`OpenCode plugin against the real ${host.title}`, () => {
    it("nudges an agent that stops early until its list is done", async () => {
      model.script(stopsEarlyTwice());
      const session = await opencode.createSession();
      await opencode.prompt(session, "Build the parser and its tests.");
      const log = await waitForDecision(session, "skip:no-incomplete-todos");
      expect(log).toEqual(["inject", "inject", "skip:no-incomplete-todos"]);
      expect(model.pending()).toBe(0);
      const nudges = nudgeRequests();
      expect(nudges).toHaveLength(2);
      expect(promptOf(nudges[0]!)).toContain("write the parser");
      expect(promptOf(nudges[0]!)).toContain("add tests");
      expect(promptOf(nudges[1]!)).toContain("add tests");
      // The first prompt of every model turn: the user's, then one per nudge.
      const prompts = model
        .chatRequests({ scripted: true })
        .map(promptOf)
        .filter((p): p is string => p !== null);
      // Kilo appends its own context to the user's text; OpenCode sends it as typed.
      expect(prompts[0]?.startsWith("Build the parser and its tests.")).toBe(true);
      expect(prompts.slice(1).every((p) => p.includes(NUDGE_HEADING))).toBe(true);
      const todos = (await (await opencode.request("GET", `/session/${session}/todo`)).json()) as {
        status: string;
      }[];
      expect(todos.map((t) => t.status)).toEqual(["completed", "completed"]);

      // Idle to nudge, past the countdown: from the session's idle event (as this process read it
      // off OpenCode's event stream) to the nudge's request at the model server.
      const scripted = model.chatRequests({ scripted: true });
      const idles = opencode
        .events()
        .filter((e) => e.type === "session.idle" && e.properties?.sessionID === session);
      const latencies = nudges.map((nudge) => {
        const idle = idles.filter((e) => e.receivedAt <= nudge.at).at(-1);
        if (idle === undefined) throw new Error("no idle event before a nudge");
        return nudge.at - idle.receivedAt - COUNTDOWN_MS;
      });
      // For scale: OpenCode's own time from the reply that ended the turn to its idle event.
      const replyToIdle = nudges.map((nudge) => {
        const ended = scripted[scripted.indexOf(nudge) - 1]?.finishedAt ?? Number.NaN;
        const idle = idles.find((e) => e.receivedAt >= ended);
        return (idle?.receivedAt ?? Number.NaN) - ended;
      });
      const sorted = [...latencies].sort((a, b) => a - b);
      const p50 = sorted[Math.floor((sorted.length - 1) / 2)] as number;
      console.log(
        `${host.bin} idle event -> nudge request beyond the ${COUNTDOWN_MS} ms countdown: ` +
          `${latencies.join(", ")} ms (p50 ${p50} ms; target 60 ms on a quiet machine). ` +
          `${host.title}'s own: last reply -> idle event ${replyToIdle.join(", ")} ms`,
      );
      // A regression guard, loose on purpose: never before the countdown ends, and within a
      // second, or 20 bare node starts when the machine is so loaded that those are slower.
      expect(p50).toBeGreaterThanOrEqual(0);
      expect(p50).toBeLessThan(Math.max(1_000, 20 * bareNodeStartMs()));
    });

    it("gives up at the budget when the agent makes no progress", async () => {
      model.script([
        write(todo("migrate the database", "pending")),
        textReply("I will stop here."),
        textReply("Still thinking."),
        textReply("Still thinking."),
        textReply("Still thinking."),
      ]);
      const session = await opencode.createSession();
      await opencode.prompt(session, "Migrate the database.");
      const log = await waitForDecision(session, "skip:max-auto-turns");
      expect(log).toEqual(["inject", "inject", "inject", "skip:max-auto-turns"]);
      expect(nudgeRequests()).toHaveLength(3);
      expect(model.chatRequests({ scripted: true })).toHaveLength(5);
    });

    it("respects an abort: no nudge after the user stops the turn", async () => {
      model.script([
        write(todo("refactor the module", "pending")),
        { text: "Working on it", stall: true },
      ]);
      const session = await opencode.createSession();
      await opencode.prompt(session, "Refactor the module.");
      await model.waitForChatRequests(2, { scripted: true, timeoutMs: 120_000 });
      await opencode.abort(session);
      const log = await waitForDecision(session, "skip:user-abort-blocked");
      expect(log).toEqual(["skip:user-abort-blocked"]);
      expect(nudgeRequests()).toHaveLength(0);
      expect(model.chatRequests({ scripted: true })).toHaveLength(2);
    });

    it("does not loop on an API error: one nudge, then it stops", async () => {
      model.script([
        write(todo("deploy", "pending")),
        textReply("Done for now."),
        errorReply(400, "This request is invalid."),
      ]);
      const session = await opencode.createSession();
      await opencode.prompt(session, "Deploy it.");
      const log = await waitForDecision(session, "skip:provider-error");
      expect(log).toEqual(["inject", "skip:provider-error"]);
      expect(nudgeRequests()).toHaveLength(1);
      expect(model.chatRequests({ scripted: true })).toHaveLength(3);
    });

    it("after the user redirects, waits until the agent works its list again", async () => {
      model.script([
        write(todo("fix the importer", "in_progress"), todo("update the docs", "pending")),
        textReply("Stopping here."),
      ]);
      const session = await opencode.createSession();
      await opencode.prompt(session, "Fix the importer.");
      await waitForDecision(session, "inject");
      // The decision is on record before the nudge is sent: a prompt sent the moment the log
      // shows it can reach OpenCode first and have the nudge queued behind it. Wait for the
      // nudge's own model request, so the redirect below interrupts a continuation that runs.
      const [, , nudged] = await model.waitForChatRequests(3, { scripted: true });
      expect(promptOf(nudged!)).toContain(NUDGE_HEADING);
      // The user interrupts the continuation and sends the agent elsewhere.
      const promptedAt = Date.now();
      await opencode.prompt(session, "Stop. Inspect the broken context first.");
      const log = await waitForDecision(session, "skip:list-unchanged-since-user");
      // Longer than the countdown: nothing else comes.
      await new Promise((r) => setTimeout(r, 3 * COUNTDOWN_MS));
      expect(summary(await decisions(session))).toEqual(log);
      const prompts = model.chatRequests({ scripted: true }).map(promptOf);
      const redirect = prompts.findIndex((p) => p?.includes("Inspect the broken context"));
      expect(redirect).toBeGreaterThan(0);
      // For scale beside the nudge latency: OpenCode's own time from a prompt to its model request.
      const requestAt = model.chatRequests({ scripted: true })[redirect]?.at ?? Number.NaN;
      console.log(
        `${host.bin}'s own prompt -> model request in a warm session: ${requestAt - promptedAt} ms`,
      );
      expect(prompts.slice(redirect + 1).some((p) => p?.includes(NUDGE_HEADING))).toBe(false);
    });

    it("a compaction through the summarize API is not a user turn: the episode survives", async () => {
      model.script([
        write(todo("migrate the schema", "pending")),
        textReply("I will stop here."),
        textReply("Still thinking."),
        textReply("Still thinking."),
        textReply("Still thinking."),
      ]);
      const session = await opencode.createSession();
      await opencode.prompt(session, "Migrate the schema.");
      await waitForDecision(session, "skip:max-auto-turns");
      const store = createFileStore({ root: project.storeDir });
      const before = (await store.read(scopeOf(session))).state;
      const response = await opencode.request("POST", `/session/${session}/summarize`, {
        providerID: "scripted",
        modelID: "scripted-model",
      });
      expect(response.ok, await response.clone().text()).toBe(true);
      await waitFor(
        "the compaction",
        async () =>
          opencode
            .events()
            .some((e) => e.type === "session.compacted" && e.properties?.sessionID === session)
            ? true
            : undefined,
        120_000,
      );
      const log = await waitForDecision(session, "skip:recovering");
      const after = (await store.read(scopeOf(session))).state;
      await store.close();
      expect(after.episode?.id).toBe(before.episode?.id);
      expect(after.episode?.autoTurns).toBe(3);
      expect(after.lastUserTurnAt).toBe(before.lastUserTurnAt);
      expect(log.filter((d) => d === "inject")).toHaveLength(3);
    });

    it("retries once after a transient provider error, after a backoff", async () => {
      let retried = 0;
      model.script((request, index) => {
        const last = messageText(lastUserMessage(request));
        if (last.includes("temporary provider error")) {
          return retried++ === 0 ? write(todo("rotate the keys", "completed")) : textReply("Done.");
        }
        if (last.includes(NUDGE_HEADING)) {
          // Rate limited: OpenCode retries (told to wait 10 ms), then gives up.
          return {
            error: {
              status: 429,
              message: "Rate limit reached",
              type: "rate_limit_error",
              headers: { "retry-after-ms": "10" },
            },
          };
        }
        return index === 0 ? write(todo("rotate the keys", "pending")) : textReply("Stopping.");
      });
      const session = await opencode.createSession();
      await opencode.prompt(session, "Rotate the keys.");
      const log = await waitForDecision(session, "skip:no-incomplete-todos");
      expect(log).toEqual(["inject", "inject", "skip:no-incomplete-todos"]);
      const prompts = model.chatRequests({ scripted: true }).map(promptOf);
      expect(prompts.filter((p) => p?.includes("temporary provider error"))).toHaveLength(1);
    });

    it("stays silent when everything is done", async () => {
      model.script([write(todo("ship it", "completed")), textReply("Shipped.")]);
      const session = await opencode.createSession();
      await opencode.prompt(session, "Ship it.");
      const log = await waitForDecision(session, "skip:no-incomplete-todos");
      expect(log).toEqual(["skip:no-incomplete-todos"]);
      expect(nudgeRequests()).toHaveLength(0);
      expect(model.chatRequests({ scripted: true })).toHaveLength(2);
    });

    it("leaves nothing behind for a deleted session, even mid-countdown", async () => {
      model.script([write(todo("clean up", "pending")), textReply("Pausing.")]);
      const session = await opencode.createSession();
      // Earlier tests' toasts are in the event history too: only look at what comes after this prompt.
      const seen = opencode.events().length;
      await opencode.prompt(session, "Clean up.");
      // The countdown toast says a nudge is pending; delete the session during it.
      await waitFor("the countdown toast", () =>
        opencode
          .events()
          .slice(seen)
          .find((e) => e.type === "tui.toast.show" && JSON.stringify(e).includes("continuing in"))
          ? true
          : undefined,
      );
      await opencode.deleteSession(session);
      // Well past the countdown: a nudge that survived the deletion would have been sent by now.
      await new Promise((resolve) => setTimeout(resolve, COUNTDOWN_MS + 2_000));
      expect(nudgeRequests()).toHaveLength(0);
      expect(model.chatRequests({ scripted: true })).toHaveLength(2);
      expect(await decisions(session)).toEqual([]);
      const todoDir = join(project.storeDir, "todo");
      const left = existsSync(todoDir)
        ? readdirSync(todoDir, { recursive: true }).filter((f) => String(f).includes(session))
        : [];
      expect(left).toEqual([]);
    });

    it(`ran offline: ${host.title} installed nothing into the seeded config folders`, () => {
      for (const { dir, lock } of project.seeded) {
        expect(readFileSync(join(dir, "package-lock.json"), "utf8")).toBe(lock);
      }
      // Kilo's install of its unpublished plugin package fails in the background; it never waits.
      if (host.pluginPackage !== null) {
        expect(opencode.output()).not.toContain("dependency install failed");
      }
      expect(opencode.output()).toContain("todo-continuation: nudge 1 delivered");
    });
  });
}
