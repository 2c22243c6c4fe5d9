import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
    transcript_path: null,
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

/** Runs one event through `entry` and returns the package files (not node: modules) it loaded. */
function filesLoaded(host: string, entry: string, args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), "tc-hook-entry-"));
  made.push(dir);
  mkdirSync(join(dir, ".git"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLAUDE_PROJECT_DIR: dir,
    GEMINI_PROJECT_DIR: dir,
    HOME: dir,
    TODO_CONTINUATION_DIR: join(dir, "store"),
  };
  delete env.TODO_CONTINUATION_DATABASE_URL;
  const run = spawnSync(process.execPath, ["--import", TRACE, join(DIST, entry), ...args], {
    input: JSON.stringify((EVENTS[host] as (dir: string) => object)(dir)),
    env,
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stderr).not.toContain("hook failed");
  const files = run.stderr
    .split("\n")
    .filter((line) => line.startsWith("LOADED file://"))
    .map((line) => fileURLToPath(line.slice("LOADED ".length)));
  // A file imported from several places is resolved (and printed) once per import.
  return [...new Set(files)];
}

describe("the build bundles the hook process", () => {
  it("writes one file per host with hooks, importing nothing but Node's own modules", () => {
    expect(readdirSync(BUNDLE).sort()).toEqual(
      Object.keys(HOOK_RUNNERS)
        .map((host) => `${host}.js`)
        .sort(),
    );
    for (const file of readdirSync(BUNDLE)) {
      const text = readFileSync(join(BUNDLE, file), "utf8");
      const imports = [...text.matchAll(/^import\s(?:[^;]*?from\s+)?"([^"]+)";/gms)].map(
        (m) => m[1] as string,
      );
      expect(imports.filter((spec) => !spec.startsWith("node:"))).toEqual([]);
      // The PostgreSQL store is the package's own module, loaded only when a database is named
      // (Copilot's hook also loads node:sqlite on demand).
      const lazy = [...text.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1] as string);
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
    ["claude-code", "cli/main.js", ["hook", "claude-code"]],
    ["claude-code", "hosts/claude-code/bin.js", ["hook", "claude-code"]],
    ["codex", "cli/main.js", ["hook", "codex"]],
    ["codex", "hosts/codex/hook-main.js", []],
    ["gemini", "cli/main.js", ["hook", "gemini"]],
    ["gemini", "hosts/gemini/hook-main.js", []],
  ] as const) {
    it(`${entry} ${args.join(" ")}`.trim(), () => {
      const loaded = filesLoaded(host, entry, [...args]);
      // The entry, the loader that finds the bundle, and the host's one-file bundle: nothing else.
      expect(loaded.map((file) => file.slice(DIST.length)).sort()).toEqual(
        [entry, "hosts/hook-kit/loader.js", `hook/${host}.js`].sort(),
      );
      for (const heavy of ["/zod/", "/pg/", "/@modelcontextprotocol/", "/postgres-"]) {
        expect(loaded.filter((file) => file.includes(heavy))).toEqual([]);
      }
    });
  }
});
