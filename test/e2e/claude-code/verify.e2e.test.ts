import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findProjectConfig } from "../../../src/config/load.js";
import { trust } from "../../../src/config/trust.js";
import { lastUserText, reply, text, toolUse } from "../support/anthropic-server.js";
import { helperSurvey, isHelper, todoWrite } from "../support/claude-scripts.js";
import { firstStopDecided } from "../support/claude-session.js";
import {
  claudeSuite,
  hookResponses,
  type Project,
  readSession,
  resultOf,
  runClaude,
} from "./harness.js";

const suite = claudeSuite();

const finished = (content: string) => todoWrite([content, "completed"]);

/** Trusts the project's config as the user would (`todo-continuation trust`), in the run's HOME. */
function trustProject(project: Project): void {
  const loaded = findProjectConfig(project.dir, project.home);
  if (loaded === null) throw new Error("no project config");
  trust(loaded, { env: { HOME: project.home }, home: project.home, now: Date.now() });
}

/**
 * What our Stop hook printed on stderr, as Claude Code keeps it: a
 * `hook_success` attachment in the session's transcript (the TUI shows it in
 * its transcript view).
 */
function stopStderr(project: Project): string {
  const root = join(project.home, ".claude", "projects");
  const out: string[] = [];
  for (const folder of readdirSync(root)) {
    for (const file of readdirSync(join(root, folder)).filter((f) => f.endsWith(".jsonl"))) {
      for (const line of readFileSync(join(root, folder, file), "utf8").split("\n")) {
        if (!line.includes('"hook_success"')) continue;
        const a = (JSON.parse(line) as { attachment?: { hookEvent?: string; stderr?: string } })
          .attachment;
        if (a?.hookEvent === "Stop") out.push(a.stderr ?? "");
      }
    }
  }
  return out.join("\n");
}

const CHECK = "test -f done.txt || { echo 'done.txt is missing'; exit 4; }";

describe("Claude Code with a project verify", () => {
  it("nudges a false finish with the failing check, then lets the stop pass as verified", async () => {
    const model = await suite.serve([
      finished("Create done.txt"),
      reply(text("Everything is done.")),
      reply(toolUse("Bash", { command: "echo ok > done.txt", description: "Create done.txt" })),
      reply(text("Created done.txt.")),
    ]);
    const project = suite.project({ config: { verify: { command: CHECK, timeoutMs: 20_000 } } });
    // The install sized the Stop hook for the check: 2 x 20 s + 41 s.
    expect(project.report).toContain("Stop hook timeout: 81 s, covering verify.timeoutMs 20000");
    const settings = JSON.parse(
      readFileSync(join(project.dir, ".claude", "settings.json"), "utf8"),
    );
    expect(settings.hooks.Stop[0].hooks[0].timeout).toBe(81);
    trustProject(project);
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Create done.txt",
      tools: "todo-write",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    const turns = model.turns();
    expect(turns).toHaveLength(4);
    // The answer to the false finish carries the check's command, exit code and output.
    const nudge = lastUserText(turns[2] as (typeof turns)[number]);
    expect(nudge).toContain("done.txt is missing");
    expect(nudge).toContain("exit");
    expect(existsSync(join(project.dir, "done.txt"))).toBe(true);
    expect(resultOf(run)?.result).toBe("Created done.txt.");
    const { snapshot, log } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "verified"]);
    expect(log.at(-1)?.note).toMatch(/^verified in /);
    expect(snapshot.state.verify?.last).toMatchObject({ status: "passed", exitCode: 0 });
  });

  it("runs nothing from an untrusted config and stops as without it, saying what to run", async () => {
    const model = await suite.serve([finished("Tidy up"), reply(text("All tidy."))]);
    const project = suite.project({ config: { verify: { command: "touch ran.txt; exit 1" } } });
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Tidy up",
      tools: "todo-write",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    expect(model.turns()).toHaveLength(2);
    expect(existsSync(join(project.dir, "ran.txt"))).toBe(false);
    expect(stopStderr(project)).toMatch(
      /verify not run: .* is not trusted; run `todo-continuation trust`/,
    );
    const { log } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason)).toEqual(["no-incomplete-todos"]);
  });

  it("never nudges for a check that runs out of time", async () => {
    const model = await suite.serve([finished("Build it"), reply(text("Built."))]);
    const project = suite.project({ config: { verify: { command: "sleep 30", timeoutMs: 1000 } } });
    trustProject(project);
    const started = Date.now();
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Build it",
      tools: "todo-write",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(model.turns()).toHaveLength(2);
    const { log } = await readSession(project, run.sessionId as string);
    expect(log.map((e) => e.reason)).toEqual(["verify-timed-out"]);
  });

  it("never runs the check for a subagent that finishes its own list; the parent's finish runs it", async () => {
    const project = suite.project();
    // Outside the project, so the runs do not change the tree the check fingerprints.
    const runsFile = join(project.home, "check-runs.txt");
    const runs = () =>
      existsSync(runsFile) ? readFileSync(runsFile, "utf8").split("\n").filter(Boolean).length : 0;
    writeFileSync(
      join(project.dir, "todo-continuation.config.json"),
      JSON.stringify({ verify: { command: `echo run >> ${runsFile}; exit 1` } }),
    );
    trustProject(project);
    let runsWhenHelperDone = -1;
    const survey = helperSurvey({
      helperList: finished("Helper's own item"),
      helperStop: "Helper finished.",
      // The helper stops only once the parent's own first stop has been decided.
      gate: () => firstStopDecided(project),
      parentDone: () => {
        // The helper has finished its list and stopped: no check ran for it.
        runsWhenHelperDone = runs();
        return finished("Review the survey");
      },
    });
    const model = await suite.serve(survey.responder);
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Survey and review",
      tools: "todo-write",
    });
    expect(run.code, hookResponses(run)).toBe(0);
    expect(model.turns().filter(isHelper)).toHaveLength(2);
    expect(survey.parentTurns()).toBeGreaterThanOrEqual(5);
    expect(runsWhenHelperDone).toBe(0);
    const { snapshot, log } = await readSession(project, run.sessionId as string);
    expect(snapshot.todos.todos.map((t) => t.content)).toEqual(["Review the survey"]);
    // The parent's finished list ran the check once; its second stop reused that result
    // (unchanged tree) and ended the episode.
    expect(log.map((e) => e.reason ?? e.action)).toEqual([
      "background-work",
      "inject",
      "verify-unchanged-failure",
    ]);
    expect(log[1]?.note).toMatch(/^check failed: exit 1/);
    expect(runs()).toBe(1);
  });

  it("host limit: a Stop hook past its timeout is abandoned and the stop goes ahead", async () => {
    // Measures Claude Code itself: a hook that would block after 20 s, given 2 s.
    const marker = join(tmpdir(), `tc-slow-hook-${process.pid}-${Date.now()}`);
    const slow = JSON.stringify({
      hooks: {
        Stop: [
          {
            hooks: [
              {
                type: "command",
                command: `touch ${marker}; sleep 20; echo '{"decision":"block","reason":"late"}'`,
                timeout: 2,
              },
            ],
          },
        ],
      },
    });
    const model = await suite.serve([reply(text("Done."))]);
    const project = suite.project({ settings: slow });
    const started = Date.now();
    const run = await runClaude(project, model, suite.trap(), {
      prompt: "Hi",
      tools: "todo-write",
    });
    const took = Date.now() - started;
    expect(run.code).toBe(0);
    expect(model.turns()).toHaveLength(1);
    expect(resultOf(run)?.result).toBe("Done.");
    // The hook did run, and the run did not wait for it.
    expect(existsSync(marker)).toBe(true);
    rmSync(marker, { force: true });
    expect(took).toBeLessThan(15_000);
    process.stderr.write(
      `claude-code stop hook with timeout 2 s and a 20 s command: run took ${took} ms\n`,
    );
  });
});
