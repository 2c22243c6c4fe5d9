import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findProjectConfig } from "../../../src/config/load.js";
import { trust } from "../../../src/config/trust.js";
import { resolveScope } from "../../../src/core/scope/scope.js";
import { installCopilot } from "../../../src/hosts/copilot/install.js";
import { createFileStore } from "../../../src/store/file/file-store.js";
import { scopePaths } from "../../../src/store/file/paths.js";
import { BUILT_CLI } from "../support/built-cli.js";
import { fileSnapshot } from "../support/file-snapshot.js";
import { REPO_ROOT } from "../support/host-cache.js";
import {
  type ChatRequest,
  messageText,
  type OpenAiServer,
  type ScriptedReply,
  startOpenAiServer,
  textReply,
  toolCallReply,
} from "../support/openai-server.js";
import { waitFor } from "../support/wait-for.js";
import {
  type CopilotRun,
  copilotBin,
  copilotEnv as copilotEnvFor,
  decisionsOfLastSession as decisionsOfLast,
  runCopilotWith,
  sql,
  workedOffInTwoNudges,
} from "./copilot-host.js";

/** The command our hooks file runs for `event`, as Copilot runs it (bash). */
function installedCommand(dir: string, event: string): string {
  const path = join(dir, ".github", "hooks", "todo-continuation.json");
  const hooks = JSON.parse(readFileSync(path, "utf8")).hooks as Record<string, { bash: string }[]>;
  return hooks[event]?.[0]?.bash ?? "";
}

let model: OpenAiServer;
let root: string;
let project: string;
let storeDir: string;

function promptOf(request: ChatRequest): string | null {
  const last = request.body.messages.at(-1);
  return last?.role === "user" ? messageText(last) : null;
}

const copilotEnv = () => copilotEnvFor(root, model.baseURL, storeDir);

function runCopilot(
  prompt: string,
  extra: string[] = [],
  onStart: (signal: (name: NodeJS.Signals) => void) => void = () => {},
  cwd: string = project,
): Promise<CopilotRun> {
  return runCopilotWith(copilotBin(), { prompt, cwd, env: copilotEnv(), extra }, onStart);
}

/**
 * Copilot's interactive mode in a pseudo-terminal (`script` from util-linux), typed
 * into as a user would: each step waits for what the screen shows, never for a time.
 */
async function interactiveCopilot(sessionId: string) {
  const command = `stty cols 120 rows 40; exec '${copilotBin()}' --allow-all-tools --session-id ${sessionId}`;
  const child = spawn("script", ["-qfc", command, "/dev/null"], {
    cwd: project,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...copilotEnv(), TERM: "xterm-256color" },
  });
  let raw = "";
  child.stdout.on("data", (d) => (raw += d));
  child.stderr.on("data", (d) => (raw += d));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const screen = (from = 0) => stripVTControlCharacters(raw.slice(from));
  const shows = (what: string, from: number) =>
    waitFor(`the screen to show ${JSON.stringify(what)}`, () =>
      screen(from).includes(what) ? true : undefined,
    );
  const count = (what: string) => screen().split(what).length - 1;
  // The model's catalog warning is printed once the session is up and takes input.
  await shows("for configuration details", 0);
  return {
    /** Types a prompt and sends it once the input line shows it. */
    async say(text: string) {
      const from = raw.length;
      child.stdin.write(text);
      await shows(text, from);
      child.stdin.write("\r");
    },
    /** Esc, then Esc again while Copilot offers it: how a user interrupts a running turn. */
    async interrupt() {
      const cancelled = count("Operation cancelled by user");
      const from = raw.length;
      child.stdin.write("\x1b");
      await shows("again to interrupt", from);
      child.stdin.write("\x1b");
      await waitFor("Copilot to cancel the turn", () =>
        count("Operation cancelled by user") > cancelled ? true : undefined,
      );
    },
    /** Ends the program as a closed terminal would, and waits until it has shut the session down. */
    async close() {
      child.kill("SIGTERM");
      await exited;
      await waitFor("Copilot to shut the session down", () =>
        transcriptOf(sessionId).some((e) => e.type === "session.shutdown") ? true : undefined,
      );
    },
  };
}

type TranscriptEvent = {
  type: string;
  /** Set on what a subagent did. */
  agentId?: string;
  data?: { reason?: string; hookType?: string; output?: unknown };
};

/** Copilot's own record of a session (`events.jsonl`, the `transcriptPath` of its hooks). */
function transcriptOf(sessionId: string): TranscriptEvent[] {
  const path = join(root, "copilot-home", "session-state", sessionId, "events.jsonl");
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  // Only whole lines: Copilot may be writing the last one.
  return text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as TranscriptEvent);
}

/** What Copilot recorded of aborts and of the agentStop hooks it ran. */
function abortsAndStops(sessionId: string): { aborts: string[]; agentStops: number } {
  const events = transcriptOf(sessionId);
  return {
    aborts: events.filter((e) => e.type === "abort").map((e) => e.data?.reason ?? "?"),
    agentStops: events.filter((e) => e.type === "hook.start" && e.data?.hookType === "agentStop")
      .length,
  };
}

/** Every file of the store, by path. */
function storeFiles(): string[] {
  return existsSync(storeDir) ? readdirSync(storeDir, { recursive: true }).map(String) : [];
}

/** The decisions of `sessionId` once there are `count` of them. */
function decisionsReach(sessionId: string, count: number): Promise<string[]> {
  return waitFor(`${count} decisions`, async () => {
    const log = await decisionsOf(sessionId);
    return log.length >= count ? log : undefined;
  });
}

/** The decisions of one session, as `skip:<reason>` or `inject`. */
async function decisionsOf(sessionId: string): Promise<string[]> {
  const store = createFileStore({ root: storeDir });
  try {
    const log = await store.readLog(resolveScope({ kind: "session", host: "copilot", sessionId })!);
    return log.map((e) => (e.action === "skip" ? `skip:${e.reason}` : e.action));
  } finally {
    await store.close();
  }
}

/** The decisions of the only session the store holds for Copilot, as `skip:<reason>` or `inject`. */
const decisionsOfLastSession = () => decisionsOfLast(root, storeDir);

beforeAll(async () => {
  model = await startOpenAiServer({ fallback: textReply("I have nothing more to add.") });
  root = mkdtempSync(join(tmpdir(), "tc-e2e-copilot-"));
  project = join(root, "project");
  storeDir = join(root, "store");
  mkdirSync(project, { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: project });
  await installCopilot({ projectDir: project, packageRoot: REPO_ROOT, out: () => {} });
});

afterAll(async () => {
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("Copilot CLI hooks against the real Copilot CLI", () => {
  it("blocks the stops of an agent that leaves its todos open, until they are done", async () => {
    model.clearRequests();
    model.script(workedOffInTwoNudges());
    const run = await runCopilot("Build the parser and its tests.");
    expect(run.code, run.output).toBe(0);
    expect(await decisionsOfLastSession()).toEqual([
      "inject",
      "inject",
      "skip:no-incomplete-todos",
    ]);
    const nudges = model
      .chatRequests({ scripted: true })
      .map(promptOf)
      .filter((p) => p?.includes("Adding tests"));
    expect(nudges).toHaveLength(2);
    expect(nudges[0]).toContain("Writing the parser");
    expect(model.pending()).toBe(0);
  });

  it("gives up before Copilot's own cap of 8 blocks when nothing moves", async () => {
    model.clearRequests();
    model.script([
      sql(
        "INSERT INTO todos (id, title, status) VALUES ('migrate', 'Migrating the database', 'pending')",
      ),
    ]);
    const run = await runCopilot("Migrate the database.");
    expect(run.code, run.output).toBe(0);
    const log = await decisionsOfLastSession();
    console.log(`copilot, no progress: ${log.join(", ")}`);
    const injects = log.filter((d) => d === "inject").length;
    expect(injects).toBeGreaterThan(0);
    expect(injects).toBeLessThan(8);
    expect(log.at(-1)).toMatch(/^skip:/);
  });

  it("stays silent when everything is done", async () => {
    model.clearRequests();
    model.script([
      sql("INSERT INTO todos (id, title, status) VALUES ('ship', 'Shipping it', 'done')"),
      textReply("Shipped."),
    ]);
    const run = await runCopilot("Ship it.");
    expect(run.code, run.output).toBe(0);
    expect(await decisionsOfLastSession()).toEqual(["skip:no-incomplete-todos"]);
    expect(model.chatRequests({ scripted: true })).toHaveLength(2);
  });

  it("after the user redirects a resumed session, waits until the agent works its list again", async () => {
    model.clearRequests();
    const session = randomUUID();
    model.script([
      sql(
        "INSERT INTO todos (id, title, status) VALUES ('importer', 'Fixing the importer', 'pending')",
      ),
      textReply("Stopping here."),
    ]);
    expect((await runCopilot("Fix the importer.", ["--session-id", session])).code).toBe(0);
    expect((await decisionsOf(session))[0]).toBe("inject");
    model.clearRequests();
    model.script([textReply("The context is broken in three places.")]);
    const run = await runCopilot("Stop. Inspect the broken context first.", ["--resume", session]);
    expect(run.code, run.output).toBe(0);
    expect((await decisionsOf(session)).at(-1)).toBe("skip:list-unchanged-since-user");
    expect(model.chatRequests({ scripted: true })).toHaveLength(1);
  });

  it("never answers a user's interrupt (Esc Esc) with a block, and after it waits for the list to move", async () => {
    model.clearRequests();
    const session = randomUUID();
    const stall = (text: string): ScriptedReply => ({ text, stall: true });
    model.script([
      sql(
        "INSERT INTO todos (id, title, status) VALUES ('importer', 'Fixing the importer', 'pending'), ('exporter', 'Fixing the exporter', 'pending')",
      ),
      textReply("Stopping here."),
      // The answer to the nudge: it moves the list, then the user interrupts it mid-answer.
      sql("UPDATE todos SET status = 'in_progress' WHERE id = 'importer'"),
      stall("Working on the importer"),
      textReply("The log shows a bad header."),
      // A user's turn that moves the list, interrupted too.
      sql("UPDATE todos SET status = 'in_progress' WHERE id = 'exporter'"),
      stall("Working on the exporter"),
      textReply("Both are still open."),
      // The agent works its list again: now an open item is nudged.
      sql("UPDATE todos SET status = 'done' WHERE id = 'importer'"),
      textReply("The importer is fixed."),
      sql("UPDATE todos SET status = 'done' WHERE id = 'exporter'"),
      textReply("Both are fixed."),
    ]);
    const copilot = await interactiveCopilot(session);
    try {
      await copilot.say("Fix the importer and the exporter.");
      const stalled = (await model.waitForChatRequests(4, { scripted: true }))[3]!;
      expect(stalled.reply.stall).toBe(true);
      await copilot.interrupt();
      await waitFor("the model request to be aborted", () => stalled.abandonedAt);
      expect(await decisionsOf(session)).toEqual(["inject"]);

      await copilot.say("Stop. Read the failing log first.");
      expect(await decisionsReach(session, 2)).toEqual([
        "inject",
        "skip:list-unchanged-since-user",
      ]);

      await copilot.say("Now the exporter.");
      const again = (await model.waitForChatRequests(7, { scripted: true }))[6]!;
      expect(again.reply.stall).toBe(true);
      await copilot.interrupt();
      await waitFor("the model request to be aborted", () => again.abandonedAt);

      await copilot.say("What is left?");
      expect((await decisionsReach(session, 3)).at(-1)).toBe("skip:list-unchanged-since-user");

      await copilot.say("Carry on.");
      expect(await decisionsReach(session, 5)).toEqual([
        "inject",
        "skip:list-unchanged-since-user",
        "skip:list-unchanged-since-user",
        "inject",
        "skip:no-incomplete-todos",
      ]);
    } finally {
      await copilot.close();
    }
    // Copilot's own record: two user aborts, and an agentStop only for each decision we logged.
    expect(abortsAndStops(session)).toEqual({
      aborts: ["user_abort", "user_abort"],
      agentStops: 5,
    });
    // Two nudges reached the model, none after an interrupt.
    const nudged = model
      .chatRequests({ scripted: true })
      .map((r, i) => ({ i, prompt: promptOf(r) }))
      .filter((r) => r.prompt?.includes("[exporter] Fixing the exporter"));
    expect(nudged.map((r) => r.i)).toEqual([2, 10]);
    expect(model.pending()).toBe(0);
  });

  it("prompt mode: Ctrl-C ends the run with no agentStop, and the resumed prompt waits for the list", async () => {
    model.clearRequests();
    const session = randomUUID();
    model.script([
      sql(
        "INSERT INTO todos (id, title, status) VALUES ('importer', 'Fixing the importer', 'pending')",
      ),
      { text: "Working on", stall: true },
      textReply("The log shows a bad header."),
    ]);
    const run = await runCopilot("Fix the importer.", ["--session-id", session], (signal) => {
      void model.waitForChatRequests(2, { scripted: true }).then(() => signal("SIGINT"));
    });
    // Copilot dies of the signal at once: no hook runs, so nothing can block.
    expect(run.signal, run.output).toBe("SIGINT");
    await waitFor("the model request to be aborted", () => model.chatRequests()[1]?.abandonedAt);
    // The native program outlives the loader by a moment: its shutdown is the end of the run.
    await waitFor("Copilot to shut the session down", () =>
      transcriptOf(session).some((e) => e.type === "session.shutdown") ? true : undefined,
    );
    // The reason is `user_initiated` or `user_abort`, as the signal meets the turn.
    const { aborts, agentStops } = abortsAndStops(session);
    expect(aborts).toHaveLength(1);
    expect(aborts[0]).toMatch(/^user_/);
    expect(agentStops).toBe(0);
    expect(await decisionsOf(session)).toEqual([]);
    const resumed = await runCopilot("Stop. Read the failing log first.", ["--resume", session]);
    expect(resumed.code, resumed.output).toBe(0);
    expect(await decisionsOf(session)).toEqual(["skip:list-unchanged-since-user"]);
    expect(model.chatRequests({ scripted: true })).toHaveLength(3);
  });

  it("never blocks a subagent's stop, and decides the parent's on the session's list", async () => {
    model.clearRequests();
    const session = randomUUID();
    const parent = [
      sql(
        "INSERT INTO todos (id, title, status) VALUES ('review', 'Reviewing the split', 'pending')",
      ),
      toolCallReply("task", {
        name: "helpers",
        description: "Port the helpers",
        prompt: "Port the helpers.",
        agent_type: "general-purpose",
        mode: "sync",
      }),
      textReply("Delegated the helpers."),
      sql("UPDATE todos SET status = 'done'"),
      textReply("Everything is done."),
    ];
    const subagent = [
      sql(
        "INSERT INTO todos (id, title, status) VALUES ('helpers', 'Porting the helpers', 'pending')",
      ),
      textReply("Helpers left for later."),
    ];
    // The subagent's requests are told apart by their system prompt.
    const isSubagent = (r: ChatRequest) =>
      messageText(r.body.messages[0]).startsWith("As a sub-agent");
    let p = 0;
    let a = 0;
    model.script(
      (r) =>
        (isSubagent(r) ? subagent[a++] : parent[p++]) ?? textReply("I have nothing more to add."),
    );
    const before = new Set(storeFiles());
    const run = await runCopilot("Split the work.", ["--session-id", session]);
    expect(run.code, run.output).toBe(0);
    const requests = model.chatRequests({ scripted: true });
    // The subagent stopped with an open item in the session's table and got no nudge.
    expect(requests.filter(isSubagent)).toHaveLength(2);
    // Copilot ran our agentStop hook for the subagent too (its record names the agent):
    // we answered nothing. (1.0.102 would not act on a block there; the parent's it does.)
    const answers = transcriptOf(session)
      .filter((e) => e.type === "hook.end" && e.data?.hookType === "agentStop")
      .map((e) => ({ subagent: e.agentId !== undefined, block: e.data?.output !== undefined }));
    expect(answers).toEqual([
      { subagent: true, block: false },
      { subagent: false, block: true },
      { subagent: false, block: false },
    ]);
    // The parent's stop is decided on the session's one table: the subagent's row included.
    expect(await decisionsOf(session)).toEqual(["inject", "skip:no-incomplete-todos"]);
    const nudge = requests.filter((r) => !isSubagent(r)).map(promptOf)[3];
    expect(nudge).toContain("Reviewing the split");
    expect(nudge).toContain("Porting the helpers");
    expect(requests).toHaveLength(7);
    // Nothing of ours was kept for the subagent, whose events carry its own id as sessionId.
    const added = storeFiles().filter((f) => !before.has(f));
    expect(added.some((f) => f.includes(session))).toBe(true);
    expect(added.filter((f) => !f.includes(session) && /[0-9a-f]{8}-[0-9a-f]{4}-/.test(f))).toEqual(
      [],
    );
  });

  it("answers garbage on stdin with a clear error, no block, and exit 0", () => {
    for (const event of ["agentStop", "userPromptSubmitted"]) {
      const result = spawnSync("bash", ["-c", installedCommand(project, event)], {
        cwd: project,
        input: "this is not json{",
        env: copilotEnv(),
        encoding: "utf8",
      });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/todo-continuation: hook failed, allowing the stop: .*JSON/);
    }
  });

  it("install through the CLI keeps the user's hooks file running beside ours; reinstall and uninstall are byte for byte", async () => {
    const own = join(root, "own-project");
    mkdirSync(join(own, ".github", "hooks"), { recursive: true });
    execFileSync("git", ["init", "-q"], { cwd: own });
    // The user's own agentStop hook, in a file of its own, which must keep running and keep its bytes.
    const marker = join(root, "user-hook-ran");
    writeFileSync(
      join(own, ".github", "hooks", "mine.json"),
      `${JSON.stringify({ version: 1, hooks: { agentStop: [{ type: "command", bash: `echo ran >> '${marker}'` }] } })}\n`,
    );
    const cli = (...args: string[]) =>
      execFileSync(process.execPath, [BUILT_CLI, ...args], {
        cwd: own,
        env: { PATH: process.env.PATH ?? "", HOME: join(root, "home") },
        encoding: "utf8",
      });
    const before = fileSnapshot(own);
    expect(cli("install", "copilot")).toContain("Added");
    const installed = fileSnapshot(own);
    expect(Object.keys(installed).sort()).toEqual(
      [...Object.keys(before), join(".github", "hooks", "todo-continuation.json")].sort(),
    );
    expect(cli("install", "copilot")).toContain("nothing changed");
    expect(fileSnapshot(own)).toEqual(installed);
    // Copilot runs both files' hooks: ours blocks the lazy stop once, the user's runs at each stop.
    model.clearRequests();
    model.script([
      sql("INSERT INTO todos (id, title, status) VALUES ('docs', 'Writing the docs', 'pending')"),
      textReply("Stopping here."),
      sql("UPDATE todos SET status = 'done'"),
      textReply("The docs are written."),
    ]);
    const session = randomUUID();
    const run = await runCopilot("Write the docs.", ["--session-id", session], () => {}, own);
    expect(run.code, run.output).toBe(0);
    expect(await decisionsOf(session)).toEqual(["inject", "skip:no-incomplete-todos"]);
    expect(readFileSync(marker, "utf8")).toBe("ran\nran\n");
    expect(cli("uninstall", "copilot")).toContain("Removed");
    expect(fileSnapshot(own)).toEqual(before);
    expect(cli("uninstall", "copilot")).toContain("nothing changed");
  });

  it("waits out a project check longer than 30 s: install sizes agentStop's timeout for it", async () => {
    const checked = join(root, "checked-project");
    mkdirSync(checked, { recursive: true });
    execFileSync("git", ["init", "-q"], { cwd: checked });
    // A check that takes 35 s and fails.
    const command = "sleep 35; echo 'the docs are not built'; exit 4";
    writeFileSync(
      join(checked, "todo-continuation.config.json"),
      `${JSON.stringify({ verify: { command, timeoutMs: 60_000 } })}\n`,
    );
    const lines: string[] = [];
    await installCopilot({
      projectDir: checked,
      packageRoot: REPO_ROOT,
      out: (l) => lines.push(l),
    });
    expect(lines.join("\n")).toContain("Stop hook timeout: 161 s, covering verify.timeoutMs 60000");
    const home = join(root, "home");
    const loaded = findProjectConfig(checked, home);
    if (loaded === null) throw new Error("no project config");
    trust(loaded, { env: { HOME: home }, home, now: Date.now() });
    model.clearRequests();
    model.script([
      sql("INSERT INTO todos (id, title, status) VALUES ('docs', 'Building the docs', 'done')"),
      textReply("The docs are built."),
      textReply("Fixed: the docs build now."),
    ]);
    const session = randomUUID();
    const started = Date.now();
    const run = await runCopilot("Build the docs.", ["--session-id", session], () => {}, checked);
    expect(run.code, run.output).toBe(0);
    expect(Date.now() - started).toBeGreaterThan(35_000);
    // The check's failure reached the model: Copilot waited out the 35 s agentStop for our block.
    const nudge = model.chatRequests({ scripted: true }).map(promptOf)[2];
    expect(nudge).toContain("the docs are not built");
    // The agent changed nothing after it: the same failure is not nudged twice (no second 35 s run).
    expect(await decisionsOf(session)).toEqual(["inject", "skip:verify-unchanged-failure"]);
  }, 180_000);

  it("host limit: an agentStop hook past its timeoutSec is abandoned and the stop goes ahead", async () => {
    // Measures Copilot itself: a hook that would block after 20 s, given 2 s.
    const slowProject = join(root, "slow-hook-project");
    mkdirSync(join(slowProject, ".github", "hooks"), { recursive: true });
    execFileSync("git", ["init", "-q"], { cwd: slowProject });
    const marker = join(root, "slow-hook-ran");
    const finished = join(root, "slow-hook-finished");
    const bash = `touch '${marker}'; sleep 20; touch '${finished}'; echo '{"decision":"block","reason":"late"}'`;
    writeFileSync(
      join(slowProject, ".github", "hooks", "slow.json"),
      JSON.stringify({
        version: 1,
        hooks: { agentStop: [{ type: "command", bash, timeoutSec: 2 }] },
      }),
    );
    model.clearRequests();
    model.script([textReply("Done.")]);
    const started = Date.now();
    const run = await runCopilot("Hi.", [], () => {}, slowProject);
    const took = Date.now() - started;
    expect(run.code, run.output).toBe(0);
    // The hook did run, the run ended before it did, and its late block was never honoured.
    expect(existsSync(marker)).toBe(true);
    expect(existsSync(finished)).toBe(false);
    expect(model.chatRequests({ scripted: true })).toHaveLength(1);
    process.stderr.write(`copilot agentStop hook, timeoutSec 2 and a 20 s command: ${took} ms\n`);
  });

  it("never blocks on a state it cannot read, and keeps the broken bytes", async () => {
    model.clearRequests();
    const session = randomUUID();
    const scope = resolveScope({ kind: "session", host: "copilot", sessionId: session })!;
    const statePath = scopePaths(join(storeDir, "todo"), scope).state;
    const garbage = "{ broken while the model answered";
    model.script([
      sql(
        "INSERT INTO todos (id, title, status) VALUES ('port', 'Porting the importer', 'pending')",
      ),
      textReply("Stopping here."),
      // The answer to the first nudge: the state breaks before it arrives.
      { text: "Still working.", before: async () => writeFileSync(statePath, garbage) },
    ]);
    const run = await runCopilot("Port the importer.", ["--session-id", session]);
    expect(run.code, run.output).toBe(0);
    expect(await decisionsOf(session)).toEqual(["inject", "skip:state-unreadable"]);
    expect(model.chatRequests({ scripted: true })).toHaveLength(3);
    const stateDir = join(statePath, "..");
    const kept = readdirSync(stateDir).filter(
      (name) => readFileSync(join(stateDir, name), "utf8") === garbage,
    );
    expect(kept).toHaveLength(1);
  });
});
