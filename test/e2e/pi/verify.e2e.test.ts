import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUILT_CLI } from "../support/built-cli.js";
import { ensureHost, hostBin } from "../support/host-cache.js";
import { type ChatRequest, textReply, toolCallReply } from "../support/openai-server.js";
import {
  createPiWorld,
  EXTENSION,
  lastUserMessage,
  MODEL,
  messageText,
  PI_1X,
  type PiWorld,
  piVersion,
} from "./pi-world.js";

/** The oldest supported pi, and pi 1.x on the Node 22 it needs. */
const HOSTS = [
  { pkg: "@mariozechner/pi-coding-agent", version: "0.73.1", node: null },
  PI_1X,
] as const;

const init = (...items: string[]) =>
  toolCallReply("todo_write", { ops: [{ op: "init", list: [{ phase: "Work", items }] }] });
const done = (task: string) => toolCallReply("todo_write", { ops: [{ op: "done", task }] });

let world: PiWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/**
 * A git project whose check fails until `DONE` exists; each run is counted in `runs.txt`.
 * `verify` replaces that check.
 */
function project(w: PiWorld, trusted: boolean, verify?: object): string {
  const runs = join(w.storeDir, "runs.txt");
  execFileSync("git", ["init", "-q"], { cwd: w.workDir });
  writeFileSync(join(w.workDir, "README.md"), "a project\n");
  writeFileSync(
    join(w.workDir, "todo-continuation.config.json"),
    `${JSON.stringify({
      verify: verify ?? {
        command: `echo run >> ${runs}; test -e DONE || { echo "DONE is missing"; exit 1; }`,
      },
    })}\n`,
  );
  if (trusted) {
    execFileSync(process.execPath, [BUILT_CLI, "trust"], {
      cwd: w.workDir,
      env: { ...w.env, PATH: process.env.PATH ?? "" },
    });
  }
  return runs;
}

const count = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;

describe.each(HOSTS)("verify on $pkg $version (print mode)", (host) => {
  const setup = async () => {
    const bin = hostBin(ensureHost(host.pkg, host.version), "pi");
    const pathPrefix =
      host.node === null ? [] : [dirname(hostBin(ensureHost("node", host.node), "node"))];
    expect(await piVersion(bin, pathPrefix)).toContain(host.version);
    return createPiWorld(bin, { pathPrefix });
  };

  it("a false finish gets the failing check; the agent creates the file; the next stop is verified", async () => {
    world = await setup();
    const runs = project(world, true);
    world.server.script([
      init("Create the DONE file"),
      done("Create the DONE file"), // marked done without doing it
      textReply("All done."),
      toolCallReply("write", { path: "DONE", content: "yes\n" }),
      textReply("Created DONE; the check passes now."),
    ]);
    const run = await world.print("Create the DONE file.");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("Created DONE; the check passes now.");
    expect(existsSync(join(world.workDir, "DONE"))).toBe(true);
    const requests = world.server.chatRequests();
    // The verification nudge answered the false finish; the passing check sent nothing more.
    expect(requests).toHaveLength(5);
    const nudge = messageText(lastUserMessage(requests[3]!));
    expect(nudge).toContain("the project's check fails");
    expect(nudge).toContain("DONE is missing");
    const store = world.store();
    const log = await store.readLog(await world.onlyScope());
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "verified"]);
    expect(log[0]?.note).toMatch(/^check failed: exit 1/);
    expect(log[1]?.note).toMatch(/^verified in /);
    expect(count(runs)).toBe(2);
  });

  it("an untrusted config runs nothing and says what to run", async () => {
    world = await setup();
    const runs = project(world, false);
    world.server.script([
      init("Create the DONE file"),
      done("Create the DONE file"),
      textReply("All done."),
    ]);
    const run = await world.print("Create the DONE file.");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("All done.");
    expect(run.stderr).toContain("run `todo-continuation trust` in this project");
    expect(world.server.chatRequests()).toHaveLength(3);
    const log = await world.store().readLog(await world.onlyScope());
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["no-incomplete-todos"]);
    expect(count(runs)).toBe(0);
  });

  it("a trusted check that runs out of time never nudges and is logged verify-timed-out", async () => {
    world = await setup();
    project(world, true, { command: "sleep 30", timeoutMs: 1000 });
    world.server.script([init("Build it"), done("Build it"), textReply("Built.")]);
    const started = Date.now();
    const run = await world.print("Build it.");
    expect(run.code, run.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(run.stdout.trim()).toBe("Built.");
    expect(world.server.chatRequests()).toHaveLength(3);
    const log = await world.store().readLog(await world.onlyScope());
    expect(log.map((e) => e.reason)).toEqual(["verify-timed-out"]);
  });

  it("a subagent (a child pi from pi's own subagent extension) never runs the check; the parent's finish does", async () => {
    const dir = ensureHost(host.pkg, host.version);
    const bin = hostBin(dir, "pi");
    const pathPrefix =
      host.node === null ? [] : [dirname(hostBin(ensureHost("node", host.node), "node"))];
    // pi ships a subagent tool as an example extension: each call runs a child
    // `pi --mode json -p --no-session "Task: ..."`, which inherits the parent's environment
    // and loads the extensions its settings list.
    const example = join(dir, "node_modules", host.pkg, "examples", "extensions", "subagent");
    world = await createPiWorld(bin, { pathPrefix, args: ["-e", join(example, "index.ts")] });
    const w = world;
    // What the child loads: our extension, and the scripted model as the default.
    writeFileSync(
      join(w.agentDir, "settings.json"),
      JSON.stringify({ defaultProvider: "scripted", defaultModel: MODEL, extensions: [EXTENSION] }),
    );
    mkdirSync(join(w.agentDir, "agents"));
    writeFileSync(
      join(w.agentDir, "agents", "helper.md"),
      "---\nname: helper\ndescription: Does a delegated part of the work\n---\nYou help.\n",
    );
    const runs = project(w, true, {
      command: `echo run >> ${join(w.storeDir, "runs.txt")}; exit 1`,
    });
    const HELPER = "HELPER: survey the logs";
    const CONTROL = "CONTROL: a top-level pi";
    const userSays = (r: ChatRequest, text: string) =>
      r.body.messages.some((m) => m.role === "user" && messageText(m).includes(text));
    const toolNames = (r: ChatRequest | undefined) => r?.body.tools?.map((t) => t.function.name);
    let parent = 0;
    let helper = 0;
    let runsWhenHelperDone = -1;
    let helperResult = "";
    w.server.script((request) => {
      if (userSays(request, CONTROL)) return textReply("Control done.");
      if (userSays(request, HELPER)) {
        helper++;
        // It tries to keep and finish a list of its own, then stops.
        return helper === 1
          ? toolCallReply("todo_write", {
              ops: [
                { op: "init", list: [{ phase: "Help", items: ["the helper's own item"] }] },
                { op: "done", task: "the helper's own item" },
              ],
            })
          : textReply("Helper finished.");
      }
      parent++;
      switch (parent) {
        case 1:
          return init("Review the survey");
        case 2:
          return toolCallReply("subagent", { agent: "helper", task: HELPER });
        case 3:
          // The child pi has stopped and exited: no check ran for it.
          runsWhenHelperDone = count(runs);
          helperResult = messageText(request.body.messages.at(-1));
          return done("Review the survey");
        default:
          return textReply("Reviewed.");
      }
    });
    // Control: the same child command line, without a parent's mark, gets our todo tools, so
    // the child below loads our extension and is told apart by the mark alone.
    const control = await new Promise<string>((resolve) => {
      const child = execFile(
        bin,
        ["--mode", "json", "-p", "--no-session", `Task: ${CONTROL}`],
        // A store of its own: the one below must hold the parent's scope alone.
        {
          cwd: w.workDir,
          env: { ...w.env, TODO_CONTINUATION_DIR: join(dirname(w.storeDir), "control-store") },
          timeout: 60_000,
        },
        (_error, _stdout, stderr) => resolve(stderr),
      );
      // pi appends piped stdin to the prompt and waits for its end.
      child.stdin?.end();
    });
    const controlRequest = w.server.chatRequests().find((r) => userSays(r, CONTROL));
    expect(toolNames(controlRequest), control).toContain("todo_write");
    const run = await w.print("Survey and review.");
    expect(run.code, run.stderr).toBe(0);
    const helperRequests = w.server.chatRequests().filter((r) => userSays(r, HELPER));
    expect(helperRequests).toHaveLength(2);
    expect(toolNames(helperRequests[0])).not.toContain("todo_write");
    expect(helperResult).toContain("Helper finished.");
    expect(runsWhenHelperDone).toBe(0);
    // One scope: the parent's. The child stored nothing.
    const scope = await w.onlyScope();
    const log = await w.store().readLog(scope);
    // The parent's finished list ran the check once and was nudged; its second stop on the
    // unchanged tree reused the result and ended the episode.
    expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "verify-unchanged-failure"]);
    expect(log[0]?.note).toMatch(/^check failed: exit 1/);
    expect(count(runs)).toBe(1);
  });
});
