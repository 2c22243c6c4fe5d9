import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codexVersionOnPath, createCodexDoctor } from "./doctor.js";
import { installCodex } from "./install.js";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function world() {
  const root = await mkdtemp(join(tmpdir(), "tc-codex-doctor-"));
  dirs.push(root);
  const home = join(root, "home");
  const project = join(root, "project");
  const bin = join(root, "bin");
  await mkdir(join(project, ".git"), { recursive: true });
  await mkdir(bin, { recursive: true });
  const entry = join(root, "hook-main.js");
  await writeFile(entry, "");
  const env = { HOME: home, CODEX_HOME: join(home, ".codex"), PATH: bin };
  const context = { cwd: project, home, env };
  // The package's own hook entry unless `hookEntry` names another (one a test then removes).
  const install = (target: "user" | "project", hookEntry?: string) =>
    installCodex({
      env,
      projectDir: project,
      ...(hookEntry === undefined ? {} : { entry: hookEntry }),
      nodePath: process.execPath,
      target,
      out: () => {},
    });
  return { root, home, project, bin, entry, env, context, install };
}

const NO_SYSTEM = "/nonexistent/codex/config.toml";
const at = (version: string | null) =>
  createCodexDoctor({ version: async () => version, systemConfig: NO_SYSTEM });

describe("codex doctor", () => {
  it("says nothing when Codex is neither installed nor hooked", async () => {
    const w = await world();
    expect(await at(null)(w.context)).toEqual([]);
  });

  it("reads the version of the codex on PATH", async () => {
    const w = await world();
    const codex = join(w.bin, "codex");
    await writeFile(codex, "#!/bin/sh\necho 'codex-cli 0.169.0'\n");
    await chmod(codex, 0o755);
    expect(await codexVersionOnPath(w.env)).toBe("0.169.0");
    const findings = await createCodexDoctor()(w.context);
    expect(findings.find((f) => f.check === "version")).toMatchObject({ ok: true });
    expect(findings.find((f) => f.check === "hooks")).toMatchObject({ ok: false });
  });

  it("passes a fresh user install, and flags an old version", async () => {
    const w = await world();
    await w.install("user");
    const findings = await at("0.169.0")(w.context);
    expect(findings.filter((f) => !f.ok)).toEqual([]);
    expect(findings.map((f) => f.check)).toEqual([
      "version",
      "hooks",
      "trust",
      "loadable",
      "hooks-feature",
      "update-plan",
    ]);
    const old = await at("0.120.0")(w.context);
    expect(old.find((f) => f.check === "version")).toMatchObject({ ok: false });
  });

  it("says when ours is in both configs, and fails it while a command names no --target", async () => {
    const w = await world();
    await w.install("user");
    await w.install("project");
    await trustProject(w);
    const twice = (await at("0.169.0")(w.context)).find((f) => f.check === "twice");
    expect(twice).toMatchObject({ ok: true });
    expect(twice?.message).toContain("the second copy does nothing");
    // An install from before `--target`: each copy would decide every event.
    const userConfig = join(w.home, ".codex", "config.toml");
    const text = await readFile(userConfig, "utf8");
    await writeFile(userConfig, text.replaceAll(" --target user", ""));
    const old = (await at("0.169.0")(w.context)).find((f) => f.check === "twice");
    expect(old).toMatchObject({ ok: false });
    expect(old?.message).toContain("decides each event again");
  });

  it("finds untrusted hooks, a missing command and an untrusted project", async () => {
    const w = await world();
    await w.install("project", w.entry);
    const userPath = join(w.env.CODEX_HOME, "config.toml");
    const text = await readFile(userPath, "utf8");
    await writeFile(userPath, text.replace(/sha256:[0-9a-f]+/, "sha256:stale"));
    await rm(w.entry);
    const findings = await at("0.169.0")(w.context);
    const failed = Object.fromEntries(findings.filter((f) => !f.ok).map((f) => [f.check, f]));
    expect(failed.trust?.message).toContain("UserPromptSubmit");
    expect(failed.trust?.fix).toBe("todo-continuation install codex --project");
    expect(failed.loadable?.message).toContain(`runs ${w.entry}, which is not there`);
    expect(failed["project-trust"]?.fix).toContain('trust_level = "trusted"');
  });

  it("fails [features] hooks = false in the user config, naming the file", async () => {
    const w = await world();
    await w.install("project");
    const userPath = join(w.env.CODEX_HOME, "config.toml");
    await writeFile(userPath, `[features]\nhooks = false\n\n${await readFile(userPath, "utf8")}`);
    await trustProject(w);
    const failed = (await at("0.169.0")(w.context)).filter((f) => !f.ok);
    expect(failed.map((f) => f.check)).toEqual(["hooks-feature"]);
    expect(failed[0]?.message).toContain(userPath);
  });

  it("fails update_plan switched off in a trusted project over a --user install", async () => {
    const w = await world();
    await w.install("user");
    await mkdir(join(w.project, ".codex"), { recursive: true });
    const projectPath = join(w.project, ".codex", "config.toml");
    await writeFile(projectPath, "[tools.update_plan]\nenabled = false\n");
    // Untrusted, Codex does not load the project's file: nothing is wrong yet.
    expect((await at("0.169.0")(w.context)).filter((f) => !f.ok)).toEqual([]);
    await trustProject(w);
    const failed = (await at("0.169.0")(w.context)).filter((f) => !f.ok);
    expect(failed.map((f) => f.check)).toEqual(["update-plan"]);
    expect(failed[0]?.message).toContain(projectPath);
    expect(failed[0]?.fix).toContain(projectPath);
  });

  it("reads the system config, and a working folder's own layer below the project", async () => {
    const w = await world();
    await w.install("user");
    const system = join(w.root, "system.toml");
    await writeFile(system, "[features]\nhooks = false\n");
    const check = createCodexDoctor({ version: async () => "0.169.0", systemConfig: system });
    expect((await check(w.context)).find((f) => f.check === "hooks-feature")?.message).toContain(
      system,
    );
    await writeFile(system, "");
    const sub = join(w.project, "pkg");
    await mkdir(join(sub, ".codex"), { recursive: true });
    await writeFile(join(sub, ".codex", "config.toml"), "[features]\nhooks = false\n");
    await trustProject(w);
    const deep = await check({ ...w.context, cwd: sub });
    expect(deep.find((f) => f.check === "hooks-feature")).toMatchObject({ ok: false });
    expect((await check(w.context)).find((f) => f.check === "hooks-feature")?.ok).toBe(true);
  });
});

async function trustProject(w: Awaited<ReturnType<typeof world>>): Promise<void> {
  const userPath = join(w.env.CODEX_HOME, "config.toml");
  const { realpathSync } = await import("node:fs");
  await writeFile(
    userPath,
    `${await readFile(userPath, "utf8")}\n[projects.${JSON.stringify(realpathSync(w.project))}]\ntrust_level = "trusted"\n`,
  );
}
