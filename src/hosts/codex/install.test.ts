import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parse } from "smol-toml";
import { afterEach, describe, expect, it } from "vitest";
import { trustedHashes } from "./config-block.js";
import { installCodex, uninstallCodex } from "./install.js";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function world() {
  const root = await mkdtemp(join(tmpdir(), "tc-codex-install-"));
  dirs.push(root);
  const home = join(root, "codex-home");
  const project = join(root, "project");
  await mkdir(join(project, ".git"), { recursive: true });
  await mkdir(home, { recursive: true });
  const lines: string[] = [];
  const options = {
    env: { CODEX_HOME: home, HOME: root },
    projectDir: project,
    nodePath: "/usr/bin/node",
    packageRoot: "/pkg",
    out: (line: string) => void lines.push(line),
  };
  return { root, home, project, lines, options, userPath: join(home, "config.toml") };
}

const USER =
  '# mine\nmodel = "gpt-6"\n\n[model_providers.local]\nbase_url = "http://127.0.0.1:1/v1"\n';

describe("install codex", () => {
  it("--user: hooks and their trust in the user's config, idempotent, uninstall gives the file back", async () => {
    const w = await world();
    await writeFile(w.userPath, USER);
    const first = await installCodex({ ...w.options, target: "user" });
    expect(first.changes.length).toBeGreaterThan(0);
    const text = await readFile(w.userPath, "utf8");
    expect(text.startsWith(USER)).toBe(true);
    const trusted = trustedHashes(parse(text) as Record<string, unknown>);
    expect([...trusted.keys()].every((k) => k.startsWith(`${w.userPath}:`))).toBe(true);
    expect(trusted.size).toBe(4);
    const second = await installCodex({ ...w.options, target: "user" });
    expect(second.changes).toEqual([]);
    expect(await readFile(w.userPath, "utf8")).toBe(text);
    await uninstallCodex({ ...w.options, target: "user" });
    expect(await readFile(w.userPath, "utf8")).toBe(USER);
  });

  it("names its config in the command, and notes ours in the other config (Codex runs both)", async () => {
    const w = await world();
    const project = await installCodex({ ...w.options });
    expect(project.command.endsWith(" hook codex --target project")).toBe(true);
    expect(w.lines.some((l) => l.startsWith("Note:"))).toBe(false);
    const user = await installCodex({ ...w.options, target: "user", preset: "omo" });
    expect(user.command.endsWith(" hook codex --preset omo --target user")).toBe(true);
    const note = w.lines.find((l) => l.startsWith("Note:"));
    expect(note).toContain(join(w.project, ".codex", "config.toml"));
    expect(note).toContain("the second copy does nothing");
  });

  it("writes a relative --entry as the absolute path it names (Codex runs hooks from any folder)", async () => {
    const w = await world();
    const result = await installCodex({ ...w.options, target: "user", entry: "tools/hook.cjs" });
    expect(result.command).toBe(
      `"/usr/bin/node" "${resolve("tools/hook.cjs")}" hook codex --target user`,
    );
    expect(await readFile(w.userPath, "utf8")).toContain(resolve("tools/hook.cjs"));
  });

  it("writes through a symlinked config (dotfiles), which stays a symlink", async () => {
    const w = await world();
    const target = join(w.root, "dotfiles-codex.toml");
    await writeFile(target, USER);
    await symlink(target, w.userPath);
    await installCodex({ ...w.options, target: "user" });
    expect((await lstat(w.userPath)).isSymbolicLink()).toBe(true);
    expect(await readFile(target, "utf8")).toContain("[hooks");
    await uninstallCodex({ ...w.options, target: "user" });
    expect((await lstat(w.userPath)).isSymbolicLink()).toBe(true);
    expect(await readFile(target, "utf8")).toBe(USER);
  });

  it("rewrites hooks and trust together when the command changes", async () => {
    const w = await world();
    await installCodex({ ...w.options, target: "user" });
    const before = trustedHashes(
      parse(await readFile(w.userPath, "utf8")) as Record<string, unknown>,
    );
    const moved = await installCodex({ ...w.options, target: "user", preset: "omo" });
    expect(moved.command).toContain("--preset omo");
    const text = await readFile(w.userPath, "utf8");
    const after = trustedHashes(parse(text) as Record<string, unknown>);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [key, hash] of after) expect(hash).not.toBe(before.get(key));
    expect(text.match(/\[hooks\.state\./g)).toHaveLength(4);
  });

  it("--project: hooks in the project, trust in the user's config, and how to trust the project", async () => {
    const w = await world();
    await writeFile(w.userPath, USER);
    const result = await installCodex({ ...w.options, target: "project" });
    const projectConfig = join(w.project, ".codex", "config.toml");
    expect(result.configPath).toBe(projectConfig);
    const userText = await readFile(w.userPath, "utf8");
    const trusted = trustedHashes(parse(userText) as Record<string, unknown>);
    expect([...trusted.keys()].every((k) => k.startsWith(`${projectConfig}:`))).toBe(true);
    expect(w.lines.join("\n")).toContain('trust_level = "trusted"');
    expect(await readFile(join(w.project, ".gitignore"), "utf8")).toContain(
      "/.codex/todo-continuation/",
    );
    // Once the project is trusted, install stops saying how.
    await writeFile(
      w.userPath,
      `${userText}\n[projects.${JSON.stringify(w.project)}]\ntrust_level = "trusted"\n`,
    );
    w.lines.length = 0;
    await installCodex({ ...w.options, target: "project" });
    expect(w.lines.join("\n")).not.toContain("trust_level");
    await uninstallCodex({ ...w.options, target: "project" });
    await expect(readFile(projectConfig, "utf8")).rejects.toThrow(/ENOENT/);
    expect(await readFile(w.userPath, "utf8")).not.toContain("hooks.state");
  });

  it("changes nothing when a file would break", async () => {
    const w = await world();
    const broken = "model = \n";
    await writeFile(w.userPath, broken);
    await expect(installCodex({ ...w.options, target: "user" })).rejects.toThrow(/not valid TOML/);
    expect(await readFile(w.userPath, "utf8")).toBe(broken);
    await expect(installCodex({ ...w.options, preset: "nope" })).rejects.toThrow(/unknown preset/);
  });
});
