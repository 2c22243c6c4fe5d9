import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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

  it("under pi 1.x, says whether pi trusts the project whose settings list the extension", async () => {
    const ctx = world("1.3.0");
    await installPi({ target: "project", projectDir: ctx.cwd, env: ctx.env, out: () => {} });
    const trust = async () => (await piDoctor(ctx)).find((f) => f.check === "trust");
    // Never asked: `pi -p` skips the project's settings.
    expect(await trust()).toMatchObject({ ok: false, fix: expect.stringContaining("/trust") });
    expect((await trust())?.message).toContain("has not been told to trust");
    // Trusted through a parent folder, as pi's "Trust parent folder" writes it.
    const store = join(ctx.home, ".pi", "agent", "trust.json");
    mkdirSync(dirname(store), { recursive: true });
    writeFileSync(store, JSON.stringify({ [dirname(realpathSync(ctx.cwd))]: true }));
    expect(await trust()).toMatchObject({ ok: true });
    // The project's own "Do not trust" wins over the parent's.
    writeFileSync(
      store,
      JSON.stringify({ [dirname(realpathSync(ctx.cwd))]: true, [realpathSync(ctx.cwd)]: false }),
    );
    expect(await trust()).toMatchObject({ ok: false });
    expect((await trust())?.message).toContain("ignores this project's .pi/settings.json");
    writeFileSync(store, "{not json");
    expect((await trust())?.fix).toBe(`fix the JSON in ${store}`);
  });

  it("pi 0.x and user installs have no project trust to check", async () => {
    const old = world("0.73.1");
    await installPi({ target: "project", projectDir: old.cwd, env: old.env, out: () => {} });
    expect((await piDoctor(old)).map((f) => f.check)).not.toContain("trust");
    const user = world("1.3.0");
    await installPi({ target: "user", env: user.env, out: () => {} });
    expect((await piDoctor(user)).map((f) => f.check)).not.toContain("trust");
  });

  it("says nothing without pi or our entry", async () => {
    const ctx = {
      cwd: temp("pi-doctor-"),
      home: temp("pi-doctor-home-"),
      env: { PATH: "/nonexistent" },
    };
    expect(await piDoctor(ctx)).toEqual([]);
  });

  it("with two copies of the package listed, says whether pi can load both", async () => {
    const ctx = world("0.73.1");
    /** A copy of the package's extension; `copies`: a version that steps aside for another. */
    const copy = (name: string, copies: boolean) => {
      const dir = join(temp(`pi-doctor-${name}-`), "todo-continuation", "dist", "hosts", "pi");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "index.js"), "export default function () {}\n");
      if (copies) writeFileSync(join(dir, "copies.js"), "export {};\n");
      return join(dir, "index.js");
    };
    const project = copy("project", true);
    mkdirSync(join(ctx.cwd, ".pi"));
    writeFileSync(join(ctx.cwd, ".pi", "settings.json"), JSON.stringify({ extensions: [project] }));
    const agent = join(ctx.home, ".pi", "agent");
    mkdirSync(agent, { recursive: true });
    const listUser = (file: string) =>
      writeFileSync(join(agent, "settings.json"), JSON.stringify({ extensions: [file] }));
    const twice = async () => (await piDoctor(ctx)).find((f) => f.check === "twice");
    // One file from both settings: loaded once, nothing to say.
    listUser(project);
    expect(await twice()).toBeUndefined();
    listUser(copy("global", true));
    expect(await twice()).toMatchObject({ ok: true, message: expect.stringContaining("acts") });
    const old = copy("old", false);
    listUser(old);
    const finding = await twice();
    expect(finding).toMatchObject({ ok: false });
    expect(finding?.message).toContain(realpathSync(old));
    expect(finding?.message).toContain("refuses to start");
  });
});
