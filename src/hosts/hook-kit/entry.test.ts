import { spawnSync } from "node:child_process";
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
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  dropSchema,
  randomSchema,
  sql,
  TEST_DATABASE_URL,
} from "../../store/postgres/test-support/database.js";
import { HOOK_RUNNERS } from "./runners.js";

/** Built entries: run as the hosts run them, so `npm run build` must come first. */
const DIST = fileURLToPath(new URL("../../../dist/", import.meta.url));
const BUNDLE = join(DIST, "hook");
const TRACE = fileURLToPath(new URL("../test-support/trace-loads.mjs", import.meta.url));
const TRACE_CJS = fileURLToPath(new URL("../test-support/trace-loads.cjs", import.meta.url));

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** One Stop-like event per host, enough to open the store and decide. */
const EVENTS: Record<string, (dir: string) => object> = {
  "claude-code": (dir) => ({
    hook_event_name: "Stop",
    session_id: "s-entry",
    cwd: dir,
    stop_hook_active: false,
  }),
  codex: (dir) => ({
    hook_event_name: "Stop",
    session_id: "s-entry",
    turn_id: "t-1",
    cwd: dir,
    stop_hook_active: false,
    last_assistant_message: "Done.",
    model: "m",
    permission_mode: "default",
    transcript_path: join(dir, "rollout.jsonl"),
  }),
  gemini: (dir) => ({
    hook_event_name: "AfterAgent",
    session_id: "s-entry",
    cwd: dir,
    timestamp: new Date().toISOString(),
    transcript_path: join(dir, "none.json"),
    prompt: "Go.",
    prompt_response: "Done.",
    stop_hook_active: false,
  }),
};

/** A list write per host, before its Stop. */
const SETUP: Record<string, (dir: string) => object> = {
  "claude-code": (dir) => ({
    hook_event_name: "PostToolUse",
    session_id: "s-entry",
    cwd: dir,
    tool_name: "TodoWrite",
    tool_input: { todos: [{ content: "a", status: "pending", activeForm: "A" }] },
    tool_response: {},
  }),
  codex: (dir) => ({
    hook_event_name: "PostToolUse",
    session_id: "s-entry",
    turn_id: "t-1",
    cwd: dir,
    model: "m",
    permission_mode: "default",
    transcript_path: join(dir, "rollout.jsonl"),
    tool_name: "update_plan",
    tool_input: { plan: [{ step: "a", status: "pending" }] },
  }),
  gemini: (dir) => ({
    hook_event_name: "AfterTool",
    session_id: "s-entry",
    cwd: dir,
    timestamp: new Date().toISOString(),
    transcript_path: join(dir, "none.json"),
    tool_name: "write_todos",
    tool_input: { todos: [{ description: "a", status: "pending" }] },
  }),
};

/** What running one event through `entry` loaded: package files, Node modules, cached bundles. */
function loads(
  host: string,
  entry: string,
  args: string[],
): { files: string[]; builtins: string[]; cached: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "tc-hook-entry-"));
  made.push(dir);
  mkdirSync(join(dir, ".git"));
  writeFileSync(join(dir, "rollout.jsonl"), `${JSON.stringify({ type: "session_meta" })}\n`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLAUDE_PROJECT_DIR: dir,
    GEMINI_PROJECT_DIR: dir,
    HOME: dir,
    TODO_CONTINUATION_DIR: join(dir, "store"),
  };
  delete env.TODO_CONTINUATION_DATABASE_URL;
  delete env.XDG_CACHE_HOME;
  delete env.TODO_CONTINUATION_CODE_CACHE;
  // A CommonJS entry is traced without starting the ES module loader, as it runs for real.
  const trace = entry.endsWith(".cjs") ? ["--require", TRACE_CJS] : ["--import", TRACE];
  // A list written first, so the Stops decide (and block) as in a working session.
  const todos = SETUP[host]?.(dir);
  if (todos !== undefined) {
    const run = spawnSync(process.execPath, [join(DIST, entry), ...args], {
      input: JSON.stringify(todos),
      env,
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
  }
  // Twice: the second run is every later event's, with the store and the code cache in place.
  let stderr = "";
  for (let round = 0; round < 2; round++) {
    const run = spawnSync(process.execPath, [...trace, join(DIST, entry), ...args], {
      input: JSON.stringify((EVENTS[host] as (dir: string) => object)(dir)),
      env,
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("hook failed");
    stderr = run.stderr;
  }
  const lines = stderr.split("\n");
  const files = lines
    .filter((line) => line.startsWith("LOADED file://"))
    .map((line) => fileURLToPath(line.slice("LOADED ".length)))
    .filter((file) => file.startsWith(DIST))
    .map((file) => file.slice(DIST.length));
  const builtins = (lines.find((line) => line.startsWith("BUILTINS ")) ?? "BUILTINS ")
    .slice("BUILTINS ".length)
    .split(" ");
  const cacheDir = join(dir, ".cache", "todo-continuation", "code-cache");
  const cached = existsSync(cacheDir) ? readdirSync(cacheDir) : [];
  // A file imported from several places is resolved (and printed) once per import.
  return { files: [...new Set(files)].sort(), builtins, cached };
}

describe("the build bundles the hook process", () => {
  it("writes the hook command and one file per host with hooks, requiring only Node's own modules", () => {
    // main.cjs is what a hook the resident server answers runs; local.cjs, which it requires
    // otherwise, runs the host's bundle in the hook's own process.
    expect(readdirSync(BUNDLE).sort()).toEqual(
      ["main.cjs", "local.cjs", ...Object.keys(HOOK_RUNNERS).map((host) => `${host}.cjs`)].sort(),
    );
    for (const file of readdirSync(BUNDLE)) {
      const text = readFileSync(join(BUNDLE, file), "utf8");
      const required = [...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1] as string);
      // Node's own modules, and main.cjs's local.cjs beside it.
      const own = file === "main.cjs" ? ["./local.cjs"] : [];
      expect(required.filter((spec) => !spec.startsWith("node:") && spec !== "url")).toEqual(own);
      if (file === "main.cjs" || file === "local.cjs") continue;
      // Named by its build, for the code cache; the one ES module it may load is the PostgreSQL
      // store, when a database is named (Copilot's hook requires node:sqlite only for a
      // database its own reader does not read).
      expect(text).toMatch(/^\/\/ todo-continuation bundle [0-9a-f]{16}\n/);
      const lazy = [...text.matchAll(/__import\("([^"]+)"\)/g)].map((m) => m[1] as string);
      expect(lazy.filter((spec) => !spec.startsWith("node:"))).toEqual([
        "../store/postgres/index.js",
      ]);
    }
  });

  it("loads the PostgreSQL store from the bundle when a database is named", async () => {
    const schema = randomSchema("tc_hook_entry");
    const dir = mkdtempSync(join(tmpdir(), "tc-hook-pg-"));
    made.push(dir);
    const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_PROJECT_DIR: dir, HOME: dir };
    delete env.TODO_CONTINUATION_DIR;
    // The turn ended cleanly, as its transcript says.
    const transcript = join(dir, "transcript.jsonl");
    const reply = {
      role: "assistant",
      stop_reason: "end_turn",
      content: [{ type: "text", text: "Done." }],
    };
    writeFileSync(transcript, `${JSON.stringify({ type: "assistant", message: reply })}\n`);
    const base = { session_id: "s-pg", cwd: dir, transcript_path: transcript };
    const todos = [{ content: "ship it", status: "pending", activeForm: "Shipping" }];
    const events = [
      { ...base, hook_event_name: "UserPromptSubmit", prompt: "Ship it." },
      { ...base, hook_event_name: "PostToolUse", tool_name: "TodoWrite", tool_input: { todos } },
      { ...base, hook_event_name: "Stop", stop_hook_active: false },
    ];
    const args = ["hook", "claude-code", "--database-url", TEST_DATABASE_URL, "--schema", schema];
    try {
      let stdout = "";
      for (const event of events) {
        const run = spawnSync(
          process.execPath,
          ["--import", TRACE, join(DIST, "cli/main.js"), ...args],
          { input: JSON.stringify(event), env, encoding: "utf8" },
        );
        expect(run.status, run.stderr).toBe(0);
        expect(run.stderr).not.toContain("hook failed");
        expect(run.stderr).toContain(`${DIST}store/postgres/postgres-store.js`);
        stdout = run.stdout;
      }
      expect(JSON.parse(stdout)).toMatchObject({ decision: "block" });
      const rows = await sql<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".decision_log`);
      expect(Number(rows[0]?.n)).toBe(1);
    } finally {
      await dropSchema(schema);
    }
  });
});

describe("every hook entry runs the bundle and loads only what a hook needs", () => {
  for (const [host, entry, args] of [
    ["claude-code", "hook/main.cjs", ["hook", "claude-code"]],
    ["codex", "hook/main.cjs", ["hook", "codex"]],
    ["gemini", "hook/main.cjs", ["hook", "gemini"]],
    // Commands written by earlier versions.
    ["claude-code", "cli/main.js", ["hook", "claude-code"]],
    ["claude-code", "hosts/claude-code/bin.js", ["hook", "claude-code"]],
    ["codex", "cli/main.js", ["hook", "codex"]],
    ["codex", "hosts/codex/hook-main.js", []],
    ["gemini", "cli/main.js", ["hook", "gemini"]],
    ["gemini", "hosts/gemini/hook-main.js", []],
  ] as const) {
    it(`${entry} ${args.join(" ")}`.trim(), () => {
      const { files, builtins, cached } = loads(host, entry, [...args]);
      // The entry (and, for an ES module entry, the loader and the code cache's reader), then the
      // host's bundle from the code cache, which the run wrote: nothing else of the package.
      const esm = [
        "hosts/hook-kit/loader.js",
        "hosts/hook-kit/code-cache.js",
        "hosts/hook-kit/bundle-path.js",
        "hosts/hook-kit/private-cache.js",
        "core/hash/random-hex.js",
      ];
      expect(files).toEqual([entry, ...(entry.endsWith(".cjs") ? ["hook/local.cjs"] : esm)].sort());
      expect(cached).toEqual([expect.stringMatching(new RegExp(`^${host}-[0-9a-f]+-v[\\d.]+-`))]);
      // No process spawning, crypto, promise-based fs (it starts libuv's thread pool), sockets,
      // streams or `parseArgs`: a stop needs none, and each costs start-up time.
      if (entry.endsWith(".cjs")) {
        expect(builtins).toContain("vm");
        expect(
          builtins.filter((name) =>
            /^(child_process|crypto|fs\/promises|net|stream|internal\/util\/parse_args\/.*)$/.test(
              name,
            ),
          ),
        ).toEqual([]);
      }
    });
  }
});
