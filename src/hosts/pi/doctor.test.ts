import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { piDoctor } from "./doctor.js";
import { installPi } from "./install.js";

const made: string[] = [];
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A project, a home, and a `pi` printing `version` on stderr (as pi does), first on PATH. */
function world(version: string) {
  const bin = temp("pi-doctor-bin-");
  writeFileSync(join(bin, "pi"), `#!/bin/sh\necho "${version}" >&2\n`, { mode: 0o755 });
  const home = temp("pi-doctor-home-");
  return {
    cwd: temp("pi-doctor-"),
    home,
    env: { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: home },
  };
}

describe("piDoctor", () => {
  it("flags the ./node_modules entry pi resolves against .pi/, naming the fix", async () => {
    const ctx = world("0.73.1");
    mkdirSync(join(ctx.cwd, ".pi"));
    writeFileSync(
      join(ctx.cwd, ".pi", "settings.json"),
      '{"extensions":["./node_modules/todo-continuation/dist/hosts/pi/index.js"]}',
    );
    const findings = await piDoctor(ctx);
    const problems = findings.filter((f) => !f.ok);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toContain(
      join(ctx.cwd, ".pi", "node_modules", "todo-continuation", "dist", "hosts", "pi", "index.js"),
    );
    expect(problems[0]?.fix).toBe("todo-continuation install pi --project");
  });

  it("finds what install pi wrote present and loadable, and flags an old pi", async () => {
    const ctx = world("0.72.0");
    await installPi({ target: "user", env: ctx.env, out: () => {} });
    const findings = await piDoctor(ctx);
    expect(findings.map((f) => [f.check, f.ok])).toEqual([
      ["version", false],
      ["loadable", true],
    ]);
  });

  it("says nothing without pi or our entry", async () => {
    const ctx = {
      cwd: temp("pi-doctor-"),
      home: temp("pi-doctor-home-"),
      env: { PATH: "/nonexistent" },
    };
    expect(await piDoctor(ctx)).toEqual([]);
  });
});
