import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { HOOK_ENTRY, type ServerWorld, serverWorld } from "../../test-support/hook-server-world.js";
import { askServer } from "./server-client.js";
import { hookServerDoctor } from "./server-doctor.js";
import { exchangeFiles, serverFiles } from "./server-files.js";

const made: string[] = [];
const worlds: ServerWorld[] = [];
afterEach(() => {
  for (const world of worlds.splice(0)) world.stop();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function world(extra: NodeJS.ProcessEnv = {}): ServerWorld {
  const w = serverWorld(extra);
  worlds.push(w);
  return w;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tc-hook-server-"));
  made.push(dir);
  return dir;
}

/** A session's events per host, in the order a host sends them: a list, stops, a prompt, the end. */
function sessionEvents(host: string, cwd: string): string[] {
  const base = { session_id: "s-server", cwd, transcript_path: join(cwd, "none.jsonl") };
  const open = [
    { content: "a", status: "pending", activeForm: "A" },
    { content: "b", status: "pending", activeForm: "B" },
  ];
  const done = open.map((t) => ({ ...t, status: "completed" }));
  const stop = (active: boolean) => ({
    ...base,
    hook_event_name: "Stop",
    last_assistant_message: "Stopping here.",
    stop_hook_active: active,
  });
  const prompt = { ...base, hook_event_name: "UserPromptSubmit", prompt: "Go on." };
  const events: Record<string, object[]> = {
    "claude-code": [
      {
        ...base,
        hook_event_name: "PostToolUse",
        tool_name: "TodoWrite",
        tool_input: { todos: open },
      },
      stop(false),
      stop(true),
      prompt,
      stop(false),
      {
        ...base,
        hook_event_name: "PostToolUse",
        tool_name: "TodoWrite",
        tool_input: { todos: done },
      },
      stop(false),
    ],
    qwen: [
      {
        ...base,
        hook_event_name: "PostToolUse",
        tool_name: "todo_write",
        tool_input: { todos: [{ id: "1", content: "a", status: "pending" }] },
      },
      stop(false),
      stop(true),
      prompt,
      stop(false),
    ],
    codex: [
      {
        ...base,
        turn_id: "t1",
        hook_event_name: "PostToolUse",
        tool_name: "update_plan",
        tool_input: { plan: [{ step: "a", status: "pending" }] },
      },
      { ...stop(false), turn_id: "t1" },
      { ...stop(true), turn_id: "t1" },
      { ...prompt, turn_id: "t2" },
      { ...stop(false), turn_id: "t2" },
    ],
    gemini: [
      {
        ...base,
        hook_event_name: "AfterTool",
        tool_name: "write_todos",
        tool_input: { todos: [{ description: "a", status: "pending" }] },
      },
      ...[0, 1, 2].map((i) => ({
        ...base,
        hook_event_name: "AfterAgent",
        prompt: "Do it.",
        prompt_response: `Stopping here.${" Again.".repeat(i)}`,
        stop_hook_active: i > 0,
      })),
    ],
  };
  return (events[host] ?? []).map((e) => JSON.stringify(e));
}

/** Episode names and times differ from run to run; nothing else in an answer may. */
function normalized(text: string): string {
  return text.replace(/ep-[a-z0-9]+/g, "ep-*");
}

describe("the resident hook server", () => {
  it.each(["claude-code", "codex", "gemini", "qwen"])(
    "answers %s's events as the hook's own process does, and keeps the same store",
    (host) => {
      const w = world();
      const home = tempDir();
      const env = { HOME: home, TODO_CONTINUATION_GEMINI_CHILDREN: join(home, "children") };
      // The first event starts the server; every later one must be answered by it.
      const first = w.hook(
        [host, "--dir", join(home, "warm")],
        sessionEvents(host, home)[0] ?? "",
        {
          env,
        },
      );
      expect(first.status).toBe(0);
      expect(w.server()).not.toBeNull();
      const served = join(home, "served");
      const alone = join(home, "alone");
      for (const event of sessionEvents(host, home)) {
        const viaServer = w.hook([host, "--dir", served, "--preset", "parley"], event, {
          env: { ...env, TODO_CONTINUATION_HOOK_SERVER: "require" },
        });
        const own = w.hook([host, "--dir", alone, "--preset", "parley"], event, {
          env: { ...env, TODO_CONTINUATION_HOOK_SERVER: "0" },
        });
        expect(viaServer.stderr).not.toContain("did not answer");
        expect(viaServer.status).toBe(own.status);
        expect(viaServer.stdout).toBe(own.stdout);
        expect(normalized(viaServer.stderr)).toBe(normalized(own.stderr));
      }
      // The same files, and the same decisions in the same order. Temporaries are a commit's
      // passing files (the server removes a replaced document's old file after its answer).
      const files = (root: string) =>
        readdirSync(root, { recursive: true })
          .map(String)
          .filter((f) => !f.endsWith(".tmp"))
          .sort();
      expect(files(served)).toEqual(files(alone));
      // And the old files it kept for after its answers are gone (it removes them at once).
      const kept = () =>
        readdirSync(served, { recursive: true })
          .map(String)
          .filter((f) => f.endsWith(".tmp"));
      const pause = new Int32Array(new SharedArrayBuffer(4));
      for (let waited = 0; waited < 2000 && kept().length > 0; waited += 10) {
        Atomics.wait(pause, 0, 0, 10);
      }
      expect(kept()).toEqual([]);
      const logs = files(served).filter((f) => f.endsWith(".log.jsonl"));
      expect(logs.length).toBeGreaterThan(0);
      for (const log of logs) {
        const decisions = (root: string) =>
          readFileSync(join(root, log), "utf8")
            .trim()
            .split("\n")
            .map((line) => {
              const entry = JSON.parse(line) as { action?: string; reason?: string };
              return `${entry.action}:${entry.reason}`;
            });
        expect(decisions(served)).toEqual(decisions(alone));
      }
    },
  );

  it("runs one installed command as one copy of ours, whether the server or its own process runs it", () => {
    const w = world();
    const home = tempDir();
    const env = { HOME: home };
    const [list, stop] = sessionEvents("claude-code", home);
    const store = join(home, "store");
    const args = ["claude-code", "--dir", store, "--preset", "parley"];
    w.hook(args, list ?? "", { env });
    expect(w.server()).not.toBeNull();
    // The same stop word for word, once by the server and once by the hook's own process: the
    // second is a repeat of the same command (decided), not its twin (which would do nothing).
    const served = w.hook(args, stop ?? "", {
      env: { ...env, TODO_CONTINUATION_HOOK_SERVER: "require" },
    });
    const own = w.hook(args, stop ?? "", { env: { ...env, TODO_CONTINUATION_HOOK_SERVER: "0" } });
    expect(served.stdout).toContain('"block"');
    expect(own.stderr).not.toContain("another installed copy");
    expect(own.stderr).toMatch(/stop (blocked|allowed)/);
    // Another command (here: other arguments) with that input is a twin, and does nothing.
    const twin = w.hook([...args, "--target", "user"], stop ?? "", { env });
    expect(twin.stderr).toContain("handled by another installed copy of this hook");
    expect(twin.stdout).toBe("");
  });

  it("runs each event in its own environment, working folder and umask", () => {
    const w = world();
    const home = tempDir();
    const event = (cwd: string) => sessionEvents("claude-code", cwd)[0] ?? "";
    w.hook(["claude-code"], event(home), {
      env: { HOME: home, TODO_CONTINUATION_DIR: join(home, "warm") },
    });
    expect(w.server()).not.toBeNull();
    const required = { HOME: home, TODO_CONTINUATION_HOOK_SERVER: "require" };
    // The store folder from the event's own variable, then another's: never the one before.
    for (const name of ["first", "second"]) {
      const result = w.hook(["claude-code"], event(home), {
        env: { ...required, TODO_CONTINUATION_DIR: join(home, name) },
      });
      expect(result.stderr).toBe("");
      expect(existsSync(join(home, name, "todo"))).toBe(true);
    }
    // No variable of the last event is left for the next: the default folder of this HOME.
    const plain = w.hook(["claude-code", "--dir", "relative-store"], event(home), {
      env: required,
      cwd: home,
    });
    expect(plain.stderr).toBe("");
    // A relative --dir is the event's working folder's, as in its own process.
    expect(existsSync(join(home, "relative-store", "todo"))).toBe(true);
    // The umask of the hook's process, not the server's.
    const strict = tempDir();
    const masked = spawnWithUmask(
      w,
      0o077,
      ["claude-code", "--dir", join(strict, "store")],
      event(strict),
      required,
    );
    expect(masked.stderr).toBe("");
    const listFolder = join(strict, "store", "todo");
    const anyList = readdirSync(listFolder, { recursive: true })
      .map(String)
      .find((f) => f.endsWith(".json"));
    expect(anyList).toBeDefined();
    expect(statSync(join(listFolder, anyList as string)).mode & 0o077).toBe(0);
  });

  it("is not used in a folder open to others or on a disk, and none is started there", () => {
    const w = world();
    const home = tempDir();
    chmodSync(w.runtime, 0o755);
    const open = w.hook(
      ["claude-code", "--dir", join(home, "s")],
      sessionEvents("claude-code", home)[0] ?? "",
      {
        env: { HOME: home },
      },
    );
    expect(open.status).toBe(0);
    expect(w.server(500)).toBeNull();
    // /tmp here is a disk (ext4): an event's environment must never be written there.
    const onDisk = tempDir();
    chmodSync(onDisk, 0o700);
    const disk = w.hook(
      ["claude-code", "--dir", join(home, "s")],
      sessionEvents("claude-code", home)[0] ?? "",
      {
        env: { HOME: home, TODO_CONTINUATION_RUNTIME_DIR: onDisk },
      },
    );
    expect(disk.status).toBe(0);
    expect(readdirSync(onDisk)).toEqual([]);
  });

  it("answers --help at once, with stdin left open, and starts no server for it", async () => {
    const w = world();
    const child = spawn(process.execPath, [HOOK_ENTRY, "hook", "claude-code", "--help"], {
      env: w.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    // stdin stays open: a caller that probes the command (doctor) may never close it.
    const status = await new Promise((resolve) => child.on("close", resolve));
    child.stdin.destroy();
    expect(status).toBe(0);
    expect(stdout).toContain("hook claude-code");
    expect(w.server(300)).toBeNull();
  });

  it("starts one server when many hooks find none at once", async () => {
    const w = world();
    const home = tempDir();
    const event = sessionEvents("claude-code", home)[0] ?? "";
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        run(w, ["claude-code", "--dir", join(home, `s${i}`)], event, { HOME: home }),
      ),
    );
    const pid = w.server();
    expect(pid).not.toBeNull();
    const [doctor] = await hookServerDoctor({ cwd: home, home, env: w.env });
    expect(doctor?.message).toBe(`hook server running in ${w.runtime} (pid ${pid})`);
    // Give any second server time to come up: none may.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const servers = readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          const cmd = readFileSync(`/proc/${p}/cmdline`, "utf8");
          return cmd.includes("hook-server-main.js") && cmd.includes(w.runtime);
        } catch {
          return false;
        }
      });
    expect(servers).toEqual([String(pid)]);
  });

  it("exits when idle, and when its folder is removed", () => {
    const w = world({ TODO_CONTINUATION_HOOK_SERVER_IDLE_MS: "300" });
    const home = tempDir();
    w.hook(["claude-code", "--dir", join(home, "s")], sessionEvents("claude-code", home)[0] ?? "", {
      env: { HOME: home },
    });
    const idle = w.server();
    expect(idle).not.toBeNull();
    expect(w.gone(idle as number)).toBe(true);
    expect(readdirSync(w.runtime).filter((n) => n.endsWith(".pid"))).toEqual([]);

    const w2 = world();
    w2.hook(
      ["claude-code", "--dir", join(home, "s")],
      sessionEvents("claude-code", home)[0] ?? "",
      {
        env: { HOME: home },
      },
    );
    const pid = w2.server();
    expect(pid).not.toBeNull();
    rmSync(w2.runtime, { recursive: true, force: true });
    expect(w2.gone(pid as number)).toBe(true);
  });

  it("hands an event back when its package changed, and retires", () => {
    // A copy of the package, whose bundle is then replaced as an upgrade would.
    const root = tempDir();
    cpSync(fileURLToPath(new URL("../../../../dist/", import.meta.url)), join(root, "dist"), {
      recursive: true,
    });
    symlinkSync(
      fileURLToPath(new URL("../../../../node_modules/", import.meta.url)),
      join(root, "node_modules"),
    );
    const entry = join(root, "dist", "hook", "main.cjs");
    const w = world();
    const home = tempDir();
    const events = sessionEvents("claude-code", home);
    w.hook(["claude-code", "--dir", join(home, "s")], events[0] ?? "", {
      env: { HOME: home },
      entry,
    });
    const pid = w.server();
    expect(pid).not.toBeNull();
    // The server loads the bundle at the first event it runs.
    const served = w.hook(["claude-code", "--dir", join(home, "s")], events[0] ?? "", {
      env: { HOME: home, TODO_CONTINUATION_HOOK_SERVER: "require" },
      entry,
    });
    expect(served.stderr).toBe("");
    const bundle = join(root, "dist", "hook", "claude-code.cjs");
    writeFileSync(bundle, `${readFileSync(bundle, "utf8")}\n// upgraded\n`);
    const after = w.hook(
      ["claude-code", "--dir", join(home, "s"), "--preset", "parley"],
      events[1] ?? "",
      {
        env: { HOME: home },
        entry,
      },
    );
    // Answered all the same, by the hook's own process.
    expect(after.stdout).toContain('"decision":"block"');
    expect(w.gone(pid as number)).toBe(true);
  });
});

describe("a hook handing an event to the server", () => {
  /** A process that passes for a server (its command line names the script) and answers nothing. */
  function fakeServer(w: ServerWorld): { pid: number; stop(): void } {
    const child = spawn(
      process.execPath,
      ["-e", "setInterval(() => {}, 1000)", "hook-server-main.js"],
      {
        stdio: "ignore",
      },
    );
    const files = serverFiles(w.runtime, join(HOOK_ENTRY, ".."), w.env);
    writeFileSync(files.pid, `${child.pid}\n`, { mode: 0o600 });
    return { pid: child.pid as number, stop: () => child.kill("SIGKILL") };
  }

  it("runs the event itself when the server does not take it in time", () => {
    const w = world();
    const fake = fakeServer(w);
    try {
      const home = tempDir();
      const result = w.hook(
        ["claude-code", "--dir", join(home, "s"), "--preset", "parley"],
        sessionEvents("claude-code", home)[0] ?? "",
        {
          env: { HOME: home },
        },
      );
      expect(result.status).toBe(0);
      expect(result.stderr).toBe("");
      expect(existsSync(join(home, "s", "todo"))).toBe(true);
      // Its question was withdrawn, not left for the server.
      expect(readdirSync(w.runtime).filter((n) => n.includes(".q."))).toEqual([]);
    } finally {
      fake.stop();
    }
  });

  it("allows the stop, in the host's own failure answer, when the server dies after taking it", async () => {
    const w = world();
    const fake = fakeServer(w);
    const home = tempDir();
    const files = serverFiles(w.runtime, join(HOOK_ENTRY, ".."), w.env);
    // Take the question as the server does, then die without an answer.
    const taker = setInterval(() => {
      for (const name of readdirSync(w.runtime)) {
        const at = name.indexOf(".q.");
        if (at < 0) continue;
        const ex = exchangeFiles(files, name.slice(at + 3));
        try {
          cpSync(ex.question, ex.claimed);
          rmSync(ex.question);
          fake.stop();
        } catch {}
      }
    }, 2);
    try {
      const stop = JSON.stringify({
        session_id: "s",
        cwd: home,
        hook_event_name: "AfterAgent",
        prompt: "Go.",
        prompt_response: "Done.",
        stop_hook_active: false,
        transcript_path: join(home, "none.json"),
      });
      const r = await run(w, ["gemini", "--dir", join(home, "s")], stop, { HOME: home });
      expect(r.status).toBe(0);
      // Gemini CLI's failure answer: an empty object, which lets the turn end.
      expect(r.stdout.trim()).toBe("{}");
      expect(r.stderr).toContain("ended before it answered");
      expect(existsSync(join(home, "s", "todo"))).toBe(false);
    } finally {
      clearInterval(taker);
      fake.stop();
    }
  });

  it("loads nothing but its entry when the server answers", () => {
    // NODE_DEBUG=module names every module a process loads through require.
    const w = world({ NODE_DEBUG: "module" });
    const dir = join(tempDir(), "store");
    const event = JSON.stringify({
      session_id: "s-entry",
      hook_event_name: "UserPromptSubmit",
      cwd: "/tmp",
      prompt: "go",
      transcript_path: "/tmp/none.jsonl",
    });
    const alone = w.hook(["claude-code", "--dir", dir], event);
    // The first event runs here (and starts the server): the hook's local part and the bundle load.
    expect(alone.stderr).toContain("local.cjs");
    expect(w.server()).not.toBeNull();
    const served = w.hook(["claude-code", "--dir", dir], event, {
      env: { TODO_CONTINUATION_HOOK_SERVER: "require" },
    });
    expect(served.status).toBe(0);
    expect(served.stderr).not.toContain("did not answer");
    const loaded = served.stderr
      .split("\n")
      .filter((line) => line.includes("Module._load REQUEST"));
    expect(loaded.map((line) => line.replace(/^.*REQUEST (\S+).*$/, "$1"))).toEqual(["node:fs"]);
  });

  it("reads the answer of nothing but a whole, own file", () => {
    const w = world();
    const fake = fakeServer(w);
    try {
      const files = serverFiles(w.runtime, join(HOOK_ENTRY, ".."), w.env);
      const input = join(tempDir(), "in.json");
      writeFileSync(input, "{}");
      const fd = openSync(input, "r");
      // The server never claims: the hook takes the event back, with the input it read.
      const outcome = askServer(files, "claude-code", [], { env: {}, cwd: "/", stdinFd: fd }, 30);
      expect(outcome.kind).toBe("here");
      expect(outcome.kind === "here" && outcome.input?.toString()).toBe("{}");
    } finally {
      fake.stop();
    }
  });
});

/** A hook run with a umask of its own (a process's umask is its own: set by a shell before it). */
function spawnWithUmask(
  w: ServerWorld,
  mask: number,
  args: string[],
  input: string,
  env: NodeJS.ProcessEnv,
): { stdout: string; stderr: string } {
  const r = spawnSync(
    "sh",
    [
      "-c",
      `umask ${mask.toString(8)} && exec "$0" "$@"`,
      process.execPath,
      HOOK_ENTRY,
      "hook",
      ...args,
    ],
    { input, encoding: "utf8", env: { ...w.env, ...env } },
  );
  return { stdout: r.stdout, stderr: r.stderr };
}

/** A hook run without blocking this process (the test acts meanwhile). */
function run(
  w: ServerWorld,
  args: string[],
  input: string,
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOOK_ENTRY, "hook", ...args], {
      env: { ...w.env, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (status) => resolve({ stdout, stderr, status }));
    child.stdin.end(input);
  });
}
