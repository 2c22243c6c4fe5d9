import { execFileSync, spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Scope } from "../../../src/core/types.js";
import { createFileStore } from "../../../src/store/file/index.js";
import { BUILT_CLI } from "../support/built-cli.js";
import { ensureHost, hostBin, REPO_ROOT } from "../support/host-cache.js";
import { textReply, toolCallReply } from "../support/openai-server.js";
import { packageCopy } from "../support/package-copy.js";
import {
  createPiWorld,
  lastUserMessage,
  messageText,
  PI_1X,
  type PiWorld,
  piVersion,
} from "./pi-world.js";

/**
 * The pi releases `install pi` is proved on: the oldest supported, and the
 * newest 1.x (`PI_1X`). pi 1.x needs Node 22, installed from npm's `node`
 * package into the same cache.
 */
const HOSTS = [
  { pkg: "@mariozechner/pi-coding-agent", version: "0.73.1", node: null, trust: [] },
  // pi 1.x loads a project's .pi/settings.json only once the project is trusted.
  { ...PI_1X, trust: ["--approve"] },
] as const;

let world: PiWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** `install pi` from the package under test, or from another copy's CLI (a global install's). */
function install(world: PiWorld, args: string[], cli: string = BUILT_CLI): string {
  return execFileSync(process.execPath, [cli, "install", "pi", ...args], {
    cwd: world.workDir,
    env: { ...world.env, PATH: process.env.PATH ?? "" },
    encoding: "utf8",
  });
}

const init = (...items: string[]) =>
  toolCallReply("todo_write", { ops: [{ op: "init", list: [{ phase: "Work", items }] }] });
const done = (task: string) => toolCallReply("todo_write", { ops: [{ op: "done", task }] });

describe.each(HOSTS)("`install pi` on $pkg $version", (host) => {
  const setup = async (): Promise<{ bin: string; pathPrefix: string[] }> => {
    const bin = hostBin(ensureHost(host.pkg, host.version), "pi");
    const pathPrefix =
      host.node === null ? [] : [dirname(hostBin(ensureHost("node", host.node), "node"))];
    expect(await piVersion(bin, pathPrefix)).toContain(host.version);
    return { bin, pathPrefix };
  };

  const script = (w: PiWorld) =>
    w.server.script([
      init("Parse the input"),
      textReply("I have a plan."), // an early stop: the extension nudges
      done("Parse the input"),
      textReply("Everything is done."),
    ]);

  const assertContinued = (w: PiWorld, stdout: string) => {
    expect(stdout.trim()).toBe("Everything is done.");
    const requests = w.server.chatRequests();
    expect(requests[0]?.body.tools?.map((t) => t.function.name)).toContain("todo_write");
    expect(requests).toHaveLength(4);
    expect(messageText(lastUserMessage(requests[2]!))).toContain("Parse the input");
  };

  it("--project: the entry it writes is one pi resolves, from the project's node_modules", async () => {
    const { bin, pathPrefix } = await setup();
    world = await createPiWorld(bin, {
      extension: "settings",
      pathPrefix,
      args: [...host.trust],
    });
    // The package as `npm install --save-dev todo-continuation` puts it.
    mkdirSync(join(world.workDir, "node_modules"));
    symlinkSync(REPO_ROOT, join(world.workDir, "node_modules", "todo-continuation"));
    const report = install(world, ["--project"]);
    expect(report).toContain("../node_modules/todo-continuation/dist/hosts/pi/index.js");
    expect(report).toMatch(/trusted/);
    const settings = JSON.parse(readFileSync(join(world.workDir, ".pi", "settings.json"), "utf8"));
    expect(settings.extensions).toEqual([
      "../node_modules/todo-continuation/dist/hosts/pi/index.js",
    ]);
    script(world);
    const run = await world.print("Build it.");
    expect(run.code, run.stderr).toBe(0);
    assertContinued(world, run.stdout);
  });

  /** A world whose project has the package in its node_modules and ours in `.pi/settings.json`. */
  const projectWorld = async (args: string[] = []): Promise<PiWorld> => {
    const { bin, pathPrefix } = await setup();
    const w = await createPiWorld(bin, {
      extension: "settings",
      pathPrefix,
      args: [...host.trust, ...args],
    });
    world = w;
    mkdirSync(join(w.workDir, "node_modules"));
    symlinkSync(REPO_ROOT, join(w.workDir, "node_modules", "todo-continuation"));
    install(w, ["--project"]);
    return w;
  };

  /** Runs the early stopper: pi continued it once, and each stop was decided once. */
  const oneDecisionPerStop = async (w: PiWorld) => {
    script(w);
    const run = await w.print("Build it.");
    expect(run.code, run.stderr).toBe(0);
    assertContinued(w, run.stdout);
    // Two copies would each decide: the second stop's `no-incomplete-todos` twice, and a
    // `stagnation` or a second nudge at the first.
    const store = createFileStore({ root: w.storeDir });
    try {
      const [scope] = await store.listScopes();
      expect(scope).toBeDefined();
      const log = await store.readLog(scope as Scope);
      expect(log.map((e) => e.reason ?? e.action)).toEqual(["inject", "no-incomplete-todos"]);
    } finally {
      await store.close();
    }
  };

  it("--project and --user both: pi loads ours once, one decision per stop", async () => {
    const w = await projectWorld();
    install(w, ["--user"]);
    await oneDecisionPerStop(w);
  });

  it("from two copies of the package (the project's and a global one): one decision per stop", async () => {
    const w = await projectWorld();
    // Two extensions to pi, each registering todo_write: pi refused to start (see copies.ts).
    install(w, ["--user"], packageCopy(dirname(w.workDir)));
    await oneDecisionPerStop(w);
  });

  it("after a /reload, ours acts again: one copy, then two copies of the package", async () => {
    // A command of a test extension calls pi's own reload (what /reload runs in the TUI).
    const reloader = join(mkdtempSync(join(tmpdir(), "tc-pi-reloader-")), "reloader.mjs");
    writeFileSync(
      reloader,
      `export default function (pi) {
  pi.registerCommand("tc-reload", {
    description: "reload",
    handler: async (_args, ctx) => { await ctx.reload(); },
  });
}
`,
    );
    for (const copies of [1, 2]) {
      const w = await projectWorld(["-e", reloader]);
      if (copies === 2) install(w, ["--user"], packageCopy(dirname(w.workDir)));
      script(w);
      const pi = w.rpc();
      pi.send({ id: "reload", type: "prompt", message: "/tc-reload" });
      await pi.next((e) => e.type === "response" && e.id === "reload");
      pi.send({ type: "prompt", message: "Build it." });
      await pi.next((e) => e.type === "agent_end" && w.server.chatRequests().length === 4);
      await pi.close();
      // The reloaded copy registered the tool and nudged the early stop.
      const requests = w.server.chatRequests();
      expect(requests[0]?.body.tools?.map((t) => t.function.name)).toContain("todo_write");
      expect(requests).toHaveLength(4);
      expect(messageText(lastUserMessage(requests[2]!))).toContain("Parse the input");
      await w.close();
      world = null;
    }
    rmSync(dirname(reloader), { recursive: true, force: true });
  });

  it.runIf(host.trust.length > 0)(
    "doctor's trust verdict is what pi does: untrusted runs without todo tools, trusted loads them",
    async () => {
      const { bin, pathPrefix } = await setup();
      // No --approve: pi decides from its trust store alone.
      world = await createPiWorld(bin, { extension: "settings", pathPrefix });
      mkdirSync(join(world.workDir, "node_modules"));
      symlinkSync(REPO_ROOT, join(world.workDir, "node_modules", "todo-continuation"));
      install(world, ["--project"]);
      const w = world;
      const doctor = () => {
        const run = spawnSync(process.execPath, [BUILT_CLI, "doctor", "--json"], {
          cwd: w.workDir,
          env: { ...w.env, PATH: [dirname(bin), ...pathPrefix, process.env.PATH ?? ""].join(":") },
          encoding: "utf8",
        });
        const findings = JSON.parse(run.stdout).findings as { check: string; ok: boolean }[];
        return findings.find((f) => f.check === "trust");
      };
      expect(doctor()).toMatchObject({ ok: false });
      w.server.script([textReply("No tools here.")]);
      const untrusted = await w.print("Build it.");
      expect(untrusted.code, untrusted.stderr).toBe(0);
      const tools = (i: number) =>
        w.server.chatRequests()[i]?.body.tools?.map((t) => t.function.name);
      // pi ran and asked the model, without the extension's tool.
      expect(w.server.chatRequests()).toHaveLength(1);
      expect(tools(0) ?? []).not.toContain("todo_write");

      // What pi's /trust writes: the project's real path, true.
      writeFileSync(
        join(w.agentDir, "trust.json"),
        `${JSON.stringify({ [realpathSync(w.workDir)]: true }, null, 2)}\n`,
      );
      expect(doctor()).toMatchObject({ ok: true });
      script(w);
      const trusted = await w.print("Build it.");
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(tools(1)).toContain("todo_write");
    },
  );

  it("--user: pi loads the extension in any project", async () => {
    const { bin, pathPrefix } = await setup();
    world = await createPiWorld(bin, { extension: "settings", pathPrefix });
    writeFileSync(join(world.agentDir, "settings.json"), '{\n\t"theme": "dark"\n}\n');
    install(world, ["--user"]);
    script(world);
    const run = await world.print("Build it.");
    expect(run.code, run.stderr).toBe(0);
    assertContinued(world, run.stdout);
    const uninstall = execFileSync(process.execPath, [BUILT_CLI, "uninstall", "pi", "--user"], {
      cwd: world.workDir,
      env: { ...world.env, PATH: process.env.PATH ?? "" },
      encoding: "utf8",
    });
    expect(uninstall).toContain("removed the extension entry");
    expect(readFileSync(join(world.agentDir, "settings.json"), "utf8")).toBe(
      '{\n\t"theme": "dark"\n}\n',
    );
  });
});
