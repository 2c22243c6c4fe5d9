import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureHost, hostBin, REPO_ROOT } from "../support/host-cache.js";
import { textReply, toolCallReply } from "../support/openai-server.js";
import {
  createPiWorld,
  lastUserMessage,
  messageText,
  type PiWorld,
  piVersion,
} from "./pi-world.js";

/** The built CLI (`npm run build` first): the user's `todo-continuation trust`. */
const CLI = join(process.env.TODO_CONTINUATION_DIST ?? join(REPO_ROOT, "dist"), "cli", "main.js");

/** The oldest supported pi, and pi 1.x on the Node 22 it needs. */
const HOSTS = [
  { pkg: "@mariozechner/pi-coding-agent", version: "0.73.1", node: null },
  { pkg: "@earendil-works/pi-coding-agent", version: "1.3.0", node: "22.23.3" },
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
    execFileSync(process.execPath, [CLI, "trust"], {
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
});
