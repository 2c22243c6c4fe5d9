import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { versionProgram } from "../hook-kit/test-support/version-program.js";
import { openCodeDoctor } from "./doctor.js";
import { installOpenCode } from "./install.js";

const made: string[] = [];
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function world(version: string) {
  const bin = versionProgram(temp("oc-doctor-bin-"), "opencode", version);
  const home = temp("oc-doctor-home-");
  return {
    cwd: temp("oc-doctor-"),
    home,
    env: { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: home },
  };
}

describe("openCodeDoctor", () => {
  it("loads the module the installed plugin file imports", async () => {
    const ctx = world("1.18.33");
    await installOpenCode({ projectDir: ctx.cwd, env: ctx.env, out: () => {} });
    const findings = await openCodeDoctor(ctx);
    expect(findings.map((f) => [f.check, f.ok])).toEqual([
      ["version", true],
      ["loadable", true],
      ["store", true],
    ]);
  });

  it("says when the plugin is in both folders (handled: one copy acts)", async () => {
    const ctx = world("1.18.33");
    await installOpenCode({ projectDir: ctx.cwd, env: ctx.env, out: () => {} });
    await installOpenCode({ projectDir: ctx.cwd, env: ctx.env, target: "user", out: () => {} });
    const twice = (await openCodeDoctor(ctx)).find((f) => f.check === "twice");
    expect(twice).toMatchObject({ ok: true });
    expect(twice?.message).toContain("only the project's acts");
  });

  it("flags a plugin whose module is gone, and an OpenCode older than the tested one", async () => {
    const ctx = world("1.2.0");
    const root = temp("oc-doctor-package-");
    const entry = join(root, "dist", "hosts", "opencode", "index.js");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(entry, ".."), { recursive: true });
    writeFileSync(entry, "export const TodoContinuation = () => ({});\n");
    await installOpenCode({ projectDir: ctx.cwd, env: ctx.env, packageRoot: root, out: () => {} });
    rmSync(root, { recursive: true, force: true });
    const problems = (await openCodeDoctor(ctx)).filter((f) => !f.ok);
    expect(problems.map((f) => f.check)).toEqual(["version", "plugin"]);
    expect(problems[1]?.message).toContain(entry);
    expect(problems[1]?.fix).toContain("todo-continuation install opencode --project");
  });
});
