import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../../src/core/scope/scope.js";
import { copilotDoctor } from "../../../src/hosts/copilot/doctor.js";
import { installCopilot } from "../../../src/hosts/copilot/install.js";
import { createFileStore } from "../../../src/store/file/file-store.js";
import { REPO_ROOT } from "../support/host-cache.js";
import {
  messageText,
  type OpenAiServer,
  startOpenAiServer,
  textReply,
} from "../support/openai-server.js";
import { copilotBin, copilotEnv, sql } from "./copilot-host.js";

let model: OpenAiServer;
let root: string;
let project: string;
let storeDir: string;
const installNotes: string[] = [];
const env = () => copilotEnv(root, model.baseURL, storeDir);

beforeAll(async () => {
  model = await startOpenAiServer({ fallback: textReply("I have nothing more to add.") });
  root = mkdtempSync(join(tmpdir(), "tc-e2e-copilot-twice-"));
  project = join(root, "project");
  storeDir = join(root, "store");
  mkdirSync(project, { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: project });
  await installCopilot({ projectDir: project, packageRoot: REPO_ROOT, out: () => {} });
  await installCopilot({
    projectDir: project,
    packageRoot: REPO_ROOT,
    target: "user",
    env: env(),
    out: (line) => void installNotes.push(line),
  });
});

afterAll(async () => {
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/**
 * Ours installed for the project and for the user: the real Copilot CLI (1.0.102) runs both hooks
 * files, each with the same payload. Each event is handled once, and install and doctor say so.
 */
describe("Copilot CLI with our hooks installed for the project and the user", () => {
  it("runs both; each event is handled once; install and doctor say so", async () => {
    model.script([
      sql(
        "INSERT INTO todos (id, title, status) VALUES ('a', 'Writing the parser', 'in_progress'), ('b', 'Adding tests', 'pending')",
      ),
      textReply("Stopping here for now."),
      sql("UPDATE todos SET status = 'done' WHERE id = 'a'"),
      textReply("The parser is done."),
      sql("UPDATE todos SET status = 'done'"),
      textReply("Everything is done."),
    ]);
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(
        copilotBin(),
        ["-p", "Build the parser and its tests.", "--allow-all-tools"],
        {
          cwd: project,
          env: env(),
          stdio: "ignore",
        },
      );
      child.on("exit", resolve);
    });
    expect(code).toBe(0);
    const [session] = readdirSync(join(root, "copilot-home", "session-state")).filter((s) =>
      /^[0-9a-f-]{36}$/.test(s),
    );
    const store = createFileStore({ root: storeDir });
    const scope = resolveScope({ kind: "session", host: "copilot", sessionId: session as string });
    const log = await store.readLog(scope as NonNullable<typeof scope>);
    await store.close();
    // Three agentStops, each run by both hooks files and decided once (the second run's claim
    // fails): as with one install. Deciding both, the second saw no progress since the first's
    // nudge: inject, skip:stagnation at every stop.
    expect(log.map((e) => (e.action === "skip" ? `skip:${e.reason}` : e.action))).toEqual([
      "inject",
      "inject",
      "skip:no-incomplete-todos",
    ]);
    const nudges = model
      .chatRequests({ scripted: true })
      .map((r) => r.body.messages.at(-1))
      .filter((m) => m?.role === "user" && messageText(m).includes("Automatic nudge"))
      .map((m) => (messageText(m!).match(/Automatic nudge \d+ of 8/) ?? [""])[0]);
    // One episode: the echo of the first nudge reached both copies and neither took it for the user.
    expect(nudges).toEqual(["Automatic nudge 1 of 8", "Automatic nudge 2 of 8"]);
    const ctx = { cwd: project, home: join(root, "home"), env: env() };
    const twice = (await copilotDoctor(ctx)).find((f) => f.message.includes("installed twice"));
    expect(twice).toMatchObject({ check: "hooks", ok: false });
    expect(installNotes.some((l) => l.startsWith("Note: ") && l.includes("installed twice"))).toBe(
      true,
    );
  }, 300_000);
});
