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
  const install = (target: "user" | "project") =>
    installCodex({
      env,
      projectDir: project,
      entry,
      nodePath: process.execPath,
      target,
      out: () => {},
    });
  return { root, home, project, bin, entry, env, context, install };
}

const at = (version: string | null) => createCodexDoctor({ version: async () => version });

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
    expect(findings.map((f) => f.check)).toEqual(["version", "hooks", "trust", "command"]);
    const old = await at("0.120.0")(w.context);
    expect(old.find((f) => f.check === "version")).toMatchObject({ ok: false });
  });

  it("finds untrusted hooks, a missing command and an untrusted project", async () => {
    const w = await world();
    await w.install("project");
    const userPath = join(w.env.CODEX_HOME, "config.toml");
    const text = await readFile(userPath, "utf8");
    await writeFile(userPath, text.replace(/sha256:[0-9a-f]+/, "sha256:stale"));
    await rm(w.entry);
    const findings = await at("0.169.0")(w.context);
    const failed = Object.fromEntries(findings.filter((f) => !f.ok).map((f) => [f.check, f]));
    expect(failed.trust?.message).toContain("UserPromptSubmit");
    expect(failed.trust?.fix).toBe("todo-continuation install codex --project");
    expect(failed.command?.message).toContain(w.entry);
    expect(failed["project-trust"]?.fix).toContain('trust_level = "trusted"');
  });
});
