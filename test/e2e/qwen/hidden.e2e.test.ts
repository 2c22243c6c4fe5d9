import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolCallReply } from "../support/openai-server.js";
import {
  answersNudge,
  mentionsNudge,
  QWEN_OLDEST,
  QWEN_VERSION,
  qwenSuite,
  readSession,
  runInstalledHook,
  runQwen,
  STORE,
  startQwen,
  todoWrite,
} from "./harness.js";

/** Every file under `dir`, relative. */
function files(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(dir, join(prefix, e.name)) : [join(prefix, e.name)],
  );
}

describe.each([QWEN_VERSION, QWEN_OLDEST])(
  "Qwen Code: the cases a continuation must get right (Qwen Code %s)",
  (version) => {
    const suite = qwenSuite(version);

    it("respects a redirect: after the user's new prompt an untouched list is not nudged", async () => {
      const model = await suite.serve([
        todoWrite(["Write the parser", "in_progress"], ["Write the docs", "pending"]),
        textReply("Pausing."),
        textReply("Pausing again."),
        textReply("Sure, looking at the logs instead."),
      ]);
      const project = suite.project();
      const first = await runQwen(project, model, suite.trap(), { prompt: "Build the parser" });
      expect(first.code, first.stderr).toBe(0);
      expect(model.chatRequests().filter(answersNudge)).toHaveLength(1);
      const id = first.sessionId as string;
      const second = await runQwen(project, model, suite.trap(), {
        prompt: "Stop that, read the logs instead",
        args: ["--resume", id],
      });
      expect(second.code, second.stderr).toBe(0);
      // Nothing after the new prompt answers a nudge: the list is as the user left it.
      expect(model.chatRequests().slice(3).some(answersNudge)).toBe(false);
      const { log } = await readSession(project, id);
      expect(log.map((e) => e.reason ?? e.action)).toEqual([
        "inject",
        "stagnation",
        "list-unchanged-since-user",
      ]);
    });

    it("a user interrupt (SIGINT in -p) runs no Stop, so nothing is nudged, then or after", async () => {
      const model = await suite.serve([
        todoWrite(["Index the files", "in_progress"], ["Report", "pending"]),
        { text: "Working", stall: true },
        textReply("Here is the status you asked for."),
      ]);
      const project = suite.project();
      const run = startQwen(project, model, suite.trap(), { prompt: "Index" });
      await model.waitForChatRequests(2, { timeoutMs: 120_000 });
      process.kill(-(run.child.pid as number), "SIGINT");
      const first = await run.done;
      expect(first.code).not.toBe(0);
      const id = /"session_id":"([^"]+)"/.exec(first.stdout)?.[1] as string;
      expect((await readSession(project, id)).log).toEqual([]);
      const second = await runQwen(project, model, suite.trap(), {
        prompt: "What is the status?",
        args: ["--resume", id],
      });
      expect(second.code, second.stderr).toBe(0);
      expect(model.chatRequests().some(mentionsNudge)).toBe(false);
      const { log } = await readSession(project, id);
      expect(log.map((e) => e.reason ?? e.action)).toEqual(["list-unchanged-since-user"]);
    });

    it("never nudges a subagent, and keeps its list off the parent's", async () => {
      const model = await suite.serve([
        todoWrite(["Delegate the research", "in_progress"]),
        toolCallReply("agent", {
          description: "Research",
          prompt: "Research the retry path",
          subagent_type: "general-purpose",
          run_in_background: false,
        }),
        todoWrite(["Subagent step", "in_progress"], ["Subagent step two", "pending"]),
        textReply("Subagent stops with its own list open."),
        todoWrite(["Delegate the research", "completed"]),
        textReply("Research delegated and done."),
      ]);
      const project = suite.project();
      const run = await runQwen(project, model, suite.trap(), { prompt: "Research" });
      expect(run.code, run.stderr).toBe(0);
      expect(model.chatRequests()).toHaveLength(6);
      expect(model.chatRequests().some(mentionsNudge)).toBe(false);
      const { snapshot, log } = await readSession(project, run.sessionId as string);
      expect(snapshot.todos.todos.map((t) => t.content)).toEqual(["Delegate the research"]);
      expect(log.map((e) => e.reason ?? e.action)).toEqual(["no-incomplete-todos"]);
    });

    it("answers garbage on stdin with a clear error, no block, and exit 0 (non-blocking for Qwen)", async () => {
      const project = suite.project();
      const result = runInstalledHook(project, "this is not json{");
      expect(result.status).toBe(0);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(
        /todo-continuation: hook failed, allowing the stop: hook input is not JSON/,
      );
    });

    it("a corrupt state file: no nudge, the error said, the file kept as it was", async () => {
      const model = await suite.serve([
        todoWrite(["Ship it", "in_progress"], ["Tag it", "pending"]),
        textReply("Pausing."),
        textReply("Still pausing."),
        textReply("Now what?"),
      ]);
      const project = suite.project();
      const first = await runQwen(project, model, suite.trap(), { prompt: "Ship" });
      expect(first.code, first.stderr).toBe(0);
      const store = join(project.dir, STORE);
      const state = files(store).find((f) => f.includes(".state") && f.endsWith(".json"));
      expect(state, files(store).join("\n")).toBeDefined();
      const path = join(store, state as string);
      writeFileSync(path, "{ corrupt");
      const id = first.sessionId as string;
      const stop = JSON.stringify({
        session_id: id,
        cwd: project.dir,
        hook_event_name: "Stop",
        stop_hook_active: false,
        last_assistant_message: "Pausing.",
      });
      const direct = runInstalledHook(project, stop);
      expect(direct.status).toBe(0);
      expect(direct.stdout).toBe("");
      // The store sets the unreadable file aside (bytes kept) and the stop goes ahead, saying why.
      expect(direct.stderr).toContain("todo-continuation: stop allowed (state-unreadable)");
      const kept = files(store).find((f) => f.includes(".corrupt."));
      expect(kept, files(store).join("\n")).toBeDefined();
      expect(readFileSync(join(store, kept as string), "utf8")).toBe("{ corrupt");
      const requests = model.chatRequests().length;
      const second = await runQwen(project, model, suite.trap(), {
        prompt: "Go on",
        args: ["--resume", id],
      });
      expect(second.code, second.stderr).toBe(0);
      expect(model.chatRequests().slice(requests).some(answersNudge)).toBe(false);
    });

    it("keeps its budget below Qwen's own Stop-block cap, so every nudge it sends is delivered", async () => {
      // parley has no progress check and 25 nudges; the cap of 3 leaves room for 2.
      const model = await suite.serve([
        todoWrite(["Benchmark", "in_progress"], ["Report", "pending"]),
        textReply("Stop 1."),
        textReply("Stop 2."),
        textReply("Stop 3."),
        textReply("Stop 4."),
      ]);
      const project = suite.project({ preset: "parley" });
      const run = await runQwen(project, model, suite.trap(), {
        prompt: "Benchmark",
        env: { QWEN_CODE_STOP_HOOK_BLOCK_CAP: "3" },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(model.chatRequests()).toHaveLength(4);
      expect(model.chatRequests().filter(answersNudge)).toHaveLength(2);
      // Qwen never had to override a block of ours: the third stop was ours to let through.
      expect(run.stderr).not.toContain("Stop hook blocked continuation");
      const { log } = await readSession(project, run.sessionId as string);
      expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "inject", "max-auto-turns"]);
    });
  },
);
