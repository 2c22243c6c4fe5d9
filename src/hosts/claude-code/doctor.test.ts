import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { DoctorFinding } from "../doctor.js";
import { versionProgram } from "../hook-kit/test-support/version-program.js";
import { claudeCodeDoctor } from "./doctor.js";
import { installClaudeCode } from "./install.js";

const made: string[] = [];
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
// Installs keep their ledger in the user's Claude folder: never the real one.
process.env.HOME = temp("cc-doctor-user-");
delete process.env.CLAUDE_CONFIG_DIR;

/** A folder with a `claude` that prints the given version, first on PATH. */
function claudeOnPath(version: string): string {
  const bin = versionProgram(temp("cc-doctor-bin-"), "claude", `${version} (Claude Code)`);
  return `${bin}:${process.env.PATH ?? ""}`;
}

function world(version: string | null) {
  const cwd = temp("cc-doctor-");
  const home = temp("cc-doctor-home-");
  const PATH = version === null ? temp("cc-doctor-empty-") : claudeOnPath(version);
  return { cwd, home, env: { PATH, HOME: home } };
}

const problems = (findings: DoctorFinding[]) => findings.filter((f) => !f.ok);

describe("claudeCodeDoctor", () => {
  it("says nothing when Claude Code is neither on PATH nor configured", async () => {
    expect(await claudeCodeDoctor(world(null))).toEqual([]);
  });

  it("finds a healthy install healthy", async () => {
    const ctx = world("2.1.332");
    await installClaudeCode({ projectDir: ctx.cwd, claudeVersion: "2.1.332", out: () => {} });
    const findings = await claudeCodeDoctor(ctx);
    expect(problems(findings)).toEqual([]);
    expect(findings.map((f) => f.check)).toEqual(["version", "hooks", "loadable", "store"]);
  });

  it("flags ours from a second, older copy of the package in the user's settings", async () => {
    const ctx = world("2.1.332");
    await installClaudeCode({ projectDir: ctx.cwd, claudeVersion: "2.1.332", out: () => {} });
    const single = await claudeCodeDoctor(ctx);
    expect(single.some((f) => f.check === "twice")).toBe(false);
    // An older copy's hook entry: its --help lacks the line of a version with claims.
    const old = join(temp("cc-doctor-old-"), "todo-continuation", "dist", "hook", "main.cjs");
    mkdirSync(join(old, ".."), { recursive: true });
    writeFileSync(old, 'process.stdout.write("Usage: todo-continuation hook claude-code\\n");\n');
    await installClaudeCode({
      projectDir: ctx.cwd,
      target: "user",
      env: ctx.env,
      entry: old,
      claudeVersion: "2.1.332",
      out: () => {},
    });
    const twice = (await claudeCodeDoctor(ctx)).find((f) => f.check === "twice");
    expect(twice).toMatchObject({
      ok: false,
      fix: expect.stringContaining("uninstall claude-code --user"),
    });
    expect(twice?.message).toContain(old);
  });

  it("flags a StopFailure hook an older Claude Code cannot load, with the install that fixes it", async () => {
    const ctx = world("2.1.75");
    await installClaudeCode({ projectDir: ctx.cwd, claudeVersion: "2.1.332", out: () => {} });
    const [problem] = problems(await claudeCodeDoctor(ctx));
    expect(problem?.message).toMatch(/names StopFailure, which needs Claude Code 2\.1\.78/);
    expect(problem?.fix).toBe("todo-continuation install claude-code --project");
  });

  it("flags a version below the minimum, and a hook script that is not there", async () => {
    const ctx = world("2.0.1");
    await installClaudeCode({
      projectDir: ctx.cwd,
      packageRoot: join(ctx.cwd, "node_modules", "todo-continuation"),
      claudeVersion: "2.1.75",
      out: () => {},
    });
    const found = problems(await claudeCodeDoctor(ctx));
    expect(found.map((f) => f.fix)).toEqual([
      "claude update",
      "npm install (with todo-continuation in the project's devDependencies)",
    ]);
    expect(found[1]?.message).toContain(
      join(ctx.cwd, "node_modules", "todo-continuation", "dist", "hook", "main.cjs"),
    );
  });

  it("flags hooks installed with no claude on PATH, and a settings file that is not JSON", async () => {
    const ctx = world(null);
    const config = join(ctx.home, ".claude");
    await installClaudeCode({
      target: "user",
      env: { CLAUDE_CONFIG_DIR: config },
      claudeVersion: "2.1.332",
      out: () => {},
    });
    mkdirSync(join(ctx.cwd, ".claude"));
    writeFileSync(join(ctx.cwd, ".claude", "settings.local.json"), "{ nope");
    const found = problems(await claudeCodeDoctor(ctx));
    expect(found.map((f) => f.check).sort()).toEqual(["settings", "version"]);
  });
});
