import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copilotDoctor, MIN_COPILOT_VERSION } from "../../../src/hosts/copilot/doctor.js";
import { installCopilot } from "../../../src/hosts/copilot/install.js";
import { REPO_ROOT } from "../support/host-cache.js";
import { type OpenAiServer, startOpenAiServer, textReply } from "../support/openai-server.js";
import {
  COPILOT_OLDEST,
  COPILOT_PROMPT_GATED,
  copilotBin,
  copilotEnv,
  decisionsOfLastSession,
  runCopilotWith,
  sql,
  workedOffInTwoNudges,
} from "./copilot-host.js";

/**
 * The releases at the other ends of the range the doctor accepts (copilot.e2e.test.ts runs the
 * newest): the oldest, and the last of those (1.0.40 to 1.0.48) whose prompt mode runs a
 * repository's hooks only when `GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true` asks for them.
 */

let model: OpenAiServer;
let root: string;

beforeAll(async () => {
  model = await startOpenAiServer({ fallback: textReply("I have nothing more to add.") });
  root = mkdtempSync(join(tmpdir(), "tc-e2e-copilot-versions-"));
});

afterAll(async () => {
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A project of its own (its own Copilot home and store) with ours installed for `target`. */
async function world(version: string, name: string, target: "project" | "user" = "project") {
  const dir = join(root, name);
  const project = join(dir, "project");
  const storeDir = join(dir, "store");
  mkdirSync(project, { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: project });
  const bin = copilotBin(version);
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...copilotEnv(dir, model.baseURL, storeDir),
    ...extra,
  });
  await installCopilot({
    projectDir: project,
    packageRoot: REPO_ROOT,
    target,
    env: env(),
    out: () => {},
  });
  return {
    run: (prompt: string, extra: Record<string, string> = {}) =>
      runCopilotWith(bin, { prompt, cwd: project, env: env(extra) }),
    decisions: () => decisionsOfLastSession(dir, storeDir),
    /** The doctor's version findings, with this release's `copilot` first on PATH. */
    doctor: async (extra: Record<string, string> = {}) => {
      const path = `${dirname(bin)}:${process.env.PATH}`;
      const ctx = { cwd: project, home: join(dir, "home"), env: env({ PATH: path, ...extra }) };
      return (await copilotDoctor(ctx)).filter((f) => f.check === "version");
    },
  };
}

function scriptTwoNudges(): void {
  model.clearRequests();
  model.script(workedOffInTwoNudges());
}
const TWO_NUDGES = ["inject", "inject", "skip:no-incomplete-todos"];

describe(`Copilot CLI ${COPILOT_OLDEST}, the oldest release supported`, () => {
  it("is the release the doctor asks for at least, and the doctor finds nothing wrong with it", async () => {
    expect(MIN_COPILOT_VERSION).toBe(COPILOT_OLDEST);
    const copilot = await world(COPILOT_OLDEST, "oldest-doctor");
    expect(await copilot.doctor()).toEqual([
      expect.objectContaining({
        ok: true,
        message: `Copilot CLI ${COPILOT_OLDEST} (needs ${COPILOT_OLDEST} or newer)`,
      }),
    ]);
  }, 300_000);

  it("blocks the stops of an agent that leaves its todos open, until they are done", async () => {
    const copilot = await world(COPILOT_OLDEST, "oldest-lazy");
    scriptTwoNudges();
    const run = await copilot.run("Build the parser and its tests.");
    expect(run.code, run.output).toBe(0);
    expect(await copilot.decisions()).toEqual(TWO_NUDGES);
    expect(model.chatRequests({ scripted: true })).toHaveLength(6);
  }, 300_000);

  it("gives up before Copilot's own cap of 8 blocks when nothing moves", async () => {
    const copilot = await world(COPILOT_OLDEST, "oldest-stuck");
    model.clearRequests();
    model.script([
      sql("INSERT INTO todos (id, title, status) VALUES ('migrate', 'Migrating', 'pending')"),
    ]);
    const run = await copilot.run("Migrate the database.");
    expect(run.code, run.output).toBe(0);
    const log = await copilot.decisions();
    const injects = log.filter((d) => d === "inject").length;
    expect(injects).toBeGreaterThan(0);
    expect(injects).toBeLessThan(8);
    expect(log.at(-1)).toMatch(/^skip:/);
  }, 300_000);

  it("stays silent when everything is done", async () => {
    const copilot = await world(COPILOT_OLDEST, "oldest-done");
    model.clearRequests();
    model.script([
      sql("INSERT INTO todos (id, title, status) VALUES ('ship', 'Shipping it', 'done')"),
      textReply("Shipped."),
    ]);
    const run = await copilot.run("Ship it.");
    expect(run.code, run.output).toBe(0);
    expect(await copilot.decisions()).toEqual(["skip:no-incomplete-todos"]);
    expect(model.chatRequests({ scripted: true })).toHaveLength(2);
  }, 300_000);
});

describe(`Copilot CLI ${COPILOT_PROMPT_GATED}, whose prompt mode runs a repository's hooks only when asked`, () => {
  const ASKED = { GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS: "true" };

  it("runs none of the project's hooks in `copilot -p`, and the doctor says so and how to get round it", async () => {
    const copilot = await world(COPILOT_PROMPT_GATED, "gated-unasked");
    scriptTwoNudges();
    const run = await copilot.run("Build the parser and its tests.");
    expect(run.code, run.output).toBe(0);
    // The agent stopped with its list open and nothing of ours ran: no decision, one stop.
    expect(await copilot.decisions()).toEqual([]);
    expect(model.chatRequests({ scripted: true })).toHaveLength(2);
    const [gate, flaw] = await copilot.doctor();
    expect(gate?.ok).toBe(true);
    expect(flaw).toMatchObject({ ok: false, fix: expect.stringMatching(/^copilot update/) });
    expect(flaw?.message).toContain(
      `Copilot CLI ${COPILOT_PROMPT_GATED} runs a repository's hooks`,
    );
    expect((await copilot.doctor(ASKED)).map((f) => f.ok)).toEqual([true]);
  }, 300_000);

  it("with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true, blocks the stops until the list is done", async () => {
    const copilot = await world(COPILOT_PROMPT_GATED, "gated-asked");
    scriptTwoNudges();
    const run = await copilot.run("Build the parser and its tests.", ASKED);
    expect(run.code, run.output).toBe(0);
    expect(await copilot.decisions()).toEqual(TWO_NUDGES);
  }, 300_000);

  it("installed for the user, blocks the stops without being asked, and the doctor names no flaw", async () => {
    const copilot = await world(COPILOT_PROMPT_GATED, "gated-user", "user");
    scriptTwoNudges();
    const run = await copilot.run("Build the parser and its tests.");
    expect(run.code, run.output).toBe(0);
    expect(await copilot.decisions()).toEqual(TWO_NUDGES);
    expect((await copilot.doctor()).map((f) => f.ok)).toEqual([true]);
  }, 300_000);
});
