import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The built package, copied into a folder whose name a URL must escape (a
 * space and a `#`), run by a real `node`: the loader's fallbacks depend on
 * the errors Node itself throws, which a test runner's module loader does not.
 */
const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "tc hook loader #"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function copyPackage(name: string): string {
  const dir = join(root, name);
  cpSync(join(REPO, "dist"), join(dir, "dist"), { recursive: true });
  cpSync(join(REPO, "package.json"), join(dir, "package.json"));
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  return dir;
}

function hook(dir: string, args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: root, CLAUDE_PROJECT_DIR: root };
  delete env.TODO_CONTINUATION_DATABASE_URL;
  env.TODO_CONTINUATION_DIR = join(root, "store");
  return spawnSync(process.execPath, [join(dir, "dist", "cli", "main.js"), "hook", ...args], {
    input: JSON.stringify({ hook_event_name: "Stop", session_id: "s", cwd: root }),
    env,
    encoding: "utf8",
  });
}

describe("the hook loader, in a folder whose name needs escaping", () => {
  it("runs the bundle, and turns down a host without hooks with the CLI's message", () => {
    const dir = copyPackage("bundled");
    const ok = hook(dir, ["claude-code"]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stderr).not.toContain("hook failed");
    const unknown = hook(dir, ["opencode"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown host "opencode"');
  });

  it("without a bundle, runs the unbundled hook", () => {
    const dir = copyPackage("unbundled");
    rmSync(join(dir, "dist", "hook"), { recursive: true });
    const run = hook(dir, ["claude-code"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("hook failed");
  });

  it("a bundle that is there but broken is an error, never replaced by the unbundled hook", () => {
    const dir = copyPackage("broken");
    writeFileSync(join(dir, "dist", "hook", "claude-code.js"), 'import "../gone.js";\n');
    const run = hook(dir, ["claude-code"]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("gone.js");
  });
});
