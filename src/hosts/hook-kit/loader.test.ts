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

/** The hook command as installers write it (`dist/hook/main.cjs`), or as earlier versions did. */
const ENTRIES = [
  ["dist", "hook", "main.cjs"],
  ["dist", "cli", "main.js"],
] as const;

function hook(dir: string, args: string[], entry: readonly string[] = ENTRIES[0]) {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: root, CLAUDE_PROJECT_DIR: root };
  delete env.TODO_CONTINUATION_DATABASE_URL;
  env.TODO_CONTINUATION_DIR = join(root, "store");
  return spawnSync(process.execPath, [join(dir, ...entry), "hook", ...args], {
    input: JSON.stringify({ hook_event_name: "Stop", session_id: "s", cwd: root }),
    env,
    encoding: "utf8",
  });
}

describe("the hook loader, in a folder whose name needs escaping", () => {
  it("runs the bundle, and turns down a host without hooks with the CLI's message", () => {
    const dir = copyPackage("bundled");
    for (const entry of ENTRIES) {
      const ok = hook(dir, ["claude-code"], entry);
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.stderr).not.toContain("hook failed");
      const unknown = hook(dir, ["opencode"], entry);
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toContain('unknown host "opencode"');
    }
  });

  it("without a host's bundle, runs the unbundled hook", () => {
    const dir = copyPackage("unbundled");
    rmSync(join(dir, "dist", "hook", "claude-code.cjs"));
    for (const entry of ENTRIES) {
      const run = hook(dir, ["claude-code"], entry);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).not.toContain("hook failed");
    }
  });

  it("a bundle that is there but broken is an error, never replaced by the unbundled hook", () => {
    const dir = copyPackage("broken");
    writeFileSync(join(dir, "dist", "hook", "claude-code.cjs"), 'require("../gone.js");\n');
    for (const entry of ENTRIES) {
      const run = hook(dir, ["claude-code"], entry);
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain("gone.js");
    }
  });
});
