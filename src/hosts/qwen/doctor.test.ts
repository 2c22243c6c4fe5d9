import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { versionProgram } from "../hook-kit/test-support/version-program.js";
import { qwenDoctor } from "./doctor.js";
import { installQwen } from "./install.js";

const root = mkdtempSync(join(tmpdir(), "tc-qwen-doctor-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * A project and a HOME of their own under `root/<name>`, as the doctor's context, with a `qwen` on
 * PATH that answers `--version` as `version` does.
 */
function world(name: string, version = "0.24.4") {
  const cwd = join(root, name, "project");
  const home = join(root, name, "home");
  const bin = join(root, name, "bin");
  for (const dir of [cwd, home, bin]) mkdirSync(dir, { recursive: true });
  return { cwd, home, env: { PATH: versionProgram(bin, "qwen", version) } };
}

describe("doctor for Qwen Code", () => {
  it("says nothing without an install, then checks hooks, script, switch and todo tool", async () => {
    const ctx = world("one");
    const { cwd, home } = ctx;
    expect(await qwenDoctor(ctx)).toEqual([]);
    await installQwen({ projectDir: cwd, env: { HOME: home }, out: () => undefined });
    const healthy = await qwenDoctor(ctx);
    expect(healthy.filter((f) => !f.ok).map((f) => f.check)).toEqual(["todo-tool"]);
    expect(healthy.find((f) => f.check === "loadable")?.message).toMatch(
      /^the hook command starts \(.*dist\/hook\/main\.cjs\)$/,
    );
    const path = join(cwd, ".qwen", "settings.json");
    const settings = JSON.parse(readFileSync(path, "utf8"));
    delete settings.hooks.Stop;
    settings.disableAllHooks = true;
    settings.tools = { todoWrite: { enabled: true } };
    // The package moved away: the command names a script that is gone.
    writeFileSync(
      path,
      JSON.stringify(settings).replaceAll(
        /[^"\\ ]*dist\/hook\/main\.cjs/g,
        "/gone/todo-continuation/dist/hook/main.cjs",
      ),
    );
    const broken = await qwenDoctor(ctx);
    expect(broken.filter((f) => !f.ok).map((f) => f.check)).toEqual([
      "hooks",
      "loadable",
      "enabled",
    ]);
    expect(broken.find((f) => f.check === "hooks")?.message).toContain("lacks our Stop hook");
    expect(broken.find((f) => f.check === "loadable")?.message).toContain(
      "runs /gone/todo-continuation/dist/hook/main.cjs, which is not there",
    );
  });

  it("checks the project's check against the shorter Stop timeout of two installs", async () => {
    const ctx = world("two");
    const { cwd, home } = ctx;
    writeFileSync(
      join(cwd, "todo-continuation.config.json"),
      JSON.stringify({ verify: { command: "true", timeoutMs: 20_000 } }),
    );
    for (const target of ["project", "user"] as const) {
      await installQwen({ projectDir: cwd, env: { HOME: home }, target, out: () => undefined });
    }
    expect((await qwenDoctor(ctx)).find((f) => f.check === "timeout")).toMatchObject({ ok: true });
    // One command in both files: Qwen Code runs it once, so there is no twin to speak of.
    expect((await qwenDoctor(ctx)).some((f) => f.check === "twice")).toBe(false);
    // The user's Stop hook cut to 5 s (by hand): whichever copy Qwen keeps, the check may not fit.
    const user = join(home, ".qwen", "settings.json");
    const settings = JSON.parse(readFileSync(user, "utf8"));
    settings.hooks.Stop[0].hooks[0].timeout = 5;
    writeFileSync(user, JSON.stringify(settings));
    const timeout = (await qwenDoctor(ctx)).find((f) => f.check === "timeout");
    expect(timeout).toMatchObject({ ok: false, fix: "todo-continuation install qwen --user" });
  });

  it("flags a user install from a copy of the package that handles every event itself", async () => {
    const ctx = world("old");
    const { cwd, home } = ctx;
    // An older copy's hook entry: its --help lacks the line of a version with claims.
    const old = join(root, "old", "global", "todo-continuation", "dist", "hook", "main.cjs");
    mkdirSync(join(old, ".."), { recursive: true });
    writeFileSync(
      old,
      'process.stdout.write("Usage: todo-continuation hook qwen [options]\\n");\n',
    );
    await installQwen({ projectDir: cwd, env: { HOME: home }, out: () => undefined });
    await installQwen({
      projectDir: cwd,
      env: { HOME: home },
      target: "user",
      entry: old,
      out: () => undefined,
    });
    const twice = (await qwenDoctor(ctx)).find((f) => f.check === "twice");
    expect(twice).toMatchObject({
      ok: false,
      fix: expect.stringContaining("uninstall qwen --user"),
    });
    expect(twice?.message).toContain(old);
  });

  it("says when Qwen Code is older than the oldest release tested, or not there", async () => {
    const version = async (ctx: ReturnType<typeof world>) => {
      await installQwen({ projectDir: ctx.cwd, env: { HOME: ctx.home }, out: () => undefined });
      return (await qwenDoctor(ctx)).filter((f) => f.check === "version");
    };
    expect(await version(world("old", "0.23.3"))).toEqual([
      {
        host: "qwen",
        check: "version",
        ok: false,
        message: "Qwen Code 0.23.3 is older than 0.23.4, the oldest tested",
        fix: "npm install -g @qwen-code/qwen-code@latest",
      },
    ]);
    const ok = await version(world("oldest", "0.23.4"));
    expect(ok.map((f) => [f.ok, f.message])).toEqual([
      [true, "Qwen Code 0.23.4 (needs 0.23.4 or newer)"],
    ]);
    const none = world("none");
    const missing = await version({ ...none, env: { PATH: join(root, "none", "project") } });
    expect(missing.map((f) => [f.ok, f.message])).toEqual([
      [false, "the hooks are installed, but no `qwen` on PATH answers `qwen --version`"],
    ]);
  });
});
