import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/** Built entries: run as Claude Code runs them, so `npm run build` must come first. */
const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const TRACE = fileURLToPath(new URL("./test-support/trace-loads.mjs", import.meta.url));

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Runs one Stop event through `entry` and returns the project-relative modules it loaded. */
function modulesLoaded(entry: string, args: string[]): { loaded: string[]; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), "tc-hook-entry-"));
  made.push(dir);
  mkdirSync(join(dir, ".git"));
  const event = {
    hook_event_name: "Stop",
    session_id: "s-entry",
    cwd: dir,
    stop_hook_active: false,
  };
  const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_PROJECT_DIR: dir, HOME: dir };
  delete env.TODO_CONTINUATION_DIR;
  delete env.TODO_CONTINUATION_DATABASE_URL;
  const run = spawnSync(process.execPath, ["--import", TRACE, join(DIST, entry), ...args], {
    input: JSON.stringify(event),
    env,
    encoding: "utf8",
  });
  expect(run.status).toBe(0);
  expect(run.stderr).not.toContain("hook failed");
  const loaded = run.stderr
    .split("\n")
    .filter((line) => line.startsWith("LOADED "))
    .map((line) => line.slice("LOADED ".length))
    .filter((url) => !url.startsWith("node:"));
  return { loaded, stdout: run.stdout };
}

describe("the hook process loads only what a hook needs", () => {
  for (const [entry, args] of [
    ["cli/main.js", ["hook", "claude-code"]],
    ["hosts/claude-code/bin.js", ["hook", "claude-code"]],
  ] as const) {
    it(`${entry} ${args.join(" ")}`, () => {
      const { loaded } = modulesLoaded(entry, [...args]);
      expect(loaded.some((url) => url.endsWith("/hosts/claude-code/hook.js"))).toBe(true);
      // No CLI beyond the entry, no schema library, database driver or MCP.
      const cli = loaded.filter(
        (url) => url.includes("/dist/cli/") && !url.endsWith("/cli/main.js"),
      );
      expect(cli).toEqual([]);
      for (const heavy of [
        "/zod/",
        "/pg/",
        "/@modelcontextprotocol/",
        "/store/postgres/postgres-store",
      ]) {
        expect(loaded.filter((url) => url.includes(heavy))).toEqual([]);
      }
      expect(loaded.filter((url) => url.includes("/core/dialects/"))).toEqual([
        expect.stringContaining("/core/dialects/close.js"),
      ]);
    });
  }
});
