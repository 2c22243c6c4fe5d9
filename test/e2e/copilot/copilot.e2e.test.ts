import { execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../../src/core/scope/scope.js";
import { installCopilot } from "../../../src/hosts/copilot/install.js";
import { createFileStore } from "../../../src/store/file/file-store.js";
import { scopePaths } from "../../../src/store/file/paths.js";
import { ensureHost, hostBin, REPO_ROOT } from "../support/host-cache.js";
import {
  type ChatRequest,
  messageText,
  type OpenAiServer,
  startOpenAiServer,
  textReply,
  toolCallReply,
} from "../support/openai-server.js";

/** The real Copilot CLI, offline, against the scripted server; our hooks installed by our installer. */
const COPILOT_VERSION = "1.0.102";

let model: OpenAiServer;
let root: string;
let project: string;
let storeDir: string;

const sql = (query: string) => toolCallReply("sql", { description: "Track todos", query });

function promptOf(request: ChatRequest): string | null {
  const last = request.body.messages.at(-1);
  return last?.role === "user" ? messageText(last) : null;
}

/** Runs `copilot -p` to the end without blocking this process (the model server lives here). */
function runCopilot(
  prompt: string,
  extra: string[] = [],
): Promise<{ code: number | null; output: string }> {
  const bin = hostBin(ensureHost("@github/copilot", COPILOT_VERSION), "copilot");
  return new Promise((resolve) => {
    const child = spawn(bin, ["-p", prompt, "--allow-all-tools", ...extra], {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env.PATH,
        HOME: join(root, "home"),
        COPILOT_HOME: join(root, "copilot-home"),
        COPILOT_OFFLINE: "true",
        COPILOT_PROVIDER_BASE_URL: model.baseURL,
        COPILOT_PROVIDER_API_KEY: "test-key",
        COPILOT_MODEL: "scripted-model",
        COPILOT_AUTO_UPDATE: "false",
        // Trusts the project folder, which is what loads its .github/hooks in prompt mode.
        COPILOT_ALLOW_ALL: "true",
        TODO_CONTINUATION_DIR: storeDir,
      },
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGTERM"), 240_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
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
async function decisionsOfLastSession(): Promise<string[]> {
  const sessions = execFileSync("ls", [join(root, "copilot-home", "session-state")], {
    encoding: "utf8",
  })
    .split("\n")
    .filter((s) => /^[0-9a-f-]{36}$/.test(s));
  const store = createFileStore({ root: storeDir });
  try {
    const logs = await Promise.all(
      sessions.map((sessionId) =>
        store.readLog(resolveScope({ kind: "session", host: "copilot", sessionId })!),
      ),
    );
    const last =
      logs
        .filter((l) => l.length > 0)
        .sort((a, b) => a[0]!.at - b[0]!.at)
        .at(-1) ?? [];
    return last.map((e) => (e.action === "skip" ? `skip:${e.reason}` : e.action));
  } finally {
    await store.close();
  }
}

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
    model.script([
      sql(
        "INSERT INTO todos (id, title, status) VALUES ('write-parser', 'Writing the parser', 'in_progress'), ('add-tests', 'Adding tests', 'pending')",
      ),
      textReply("Stopping here for now."),
      sql("UPDATE todos SET status = 'done' WHERE id = 'write-parser'"),
      textReply("The parser is done."),
      sql("UPDATE todos SET status = 'done'"),
      textReply("Everything is done."),
    ]);
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
