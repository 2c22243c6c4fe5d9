import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { versionProgram } from "../hook-kit/test-support/version-program.js";
import { copilotDoctor } from "./doctor.js";
import {
  COPILOT_HOOKS_FILE,
  copilotHooksDir,
  installCopilot,
  isOurHooksFile,
  twiceInstalled,
  uninstallCopilot,
} from "./install.js";
import { copilotTranscriptPath } from "./session-state.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fixture() {
  const root = mkdtempSync(join(tmpdir(), "tc-install-copilot-"));
  dirs.push(root);
  const project = join(root, "project");
  const pkg = join(root, "pkg");
  mkdirSync(join(pkg, "dist", "hook"), { recursive: true });
  writeFileSync(join(pkg, "dist", "hook", "main.cjs"), "");
  mkdirSync(join(project, ".github", "hooks"), { recursive: true });
  // Someone else's hooks file, which must survive every step byte for byte.
  writeFileSync(join(project, ".github", "hooks", "lint.json"), '{"version":1,"hooks":{}}\n');
  const home = join(root, "home");
  const base = { projectDir: project, packageRoot: pkg, env: { HOME: home }, out: () => {} };
  return { root, project, home, base };
}

const files = (dir: string) =>
  Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), "utf8")]));

describe("install copilot", () => {
  it("adds its own hooks file, changes nothing on a reinstall, and uninstall restores the folder", async () => {
    const { project, base } = fixture();
    const hooks = join(project, ".github", "hooks");
    const before = files(hooks);
    const first = await installCopilot({ ...base, preset: "omo" });
    expect(first.hooksPath).toBe(join(hooks, COPILOT_HOOKS_FILE));
    const written = JSON.parse(readFileSync(first.hooksPath, "utf8"));
    expect(written.version).toBe(1);
    expect(Object.keys(written.hooks)).toEqual(["userPromptSubmitted", "agentStop"]);
    expect(written.hooks.agentStop[0].bash).toMatch(
      /^".+" ".+main\.cjs" hook copilot --preset omo --event agentStop$/,
    );
    const installed = files(hooks);
    expect((await installCopilot({ ...base, preset: "omo" })).changes).toEqual([]);
    expect(files(hooks)).toEqual(installed);
    await uninstallCopilot(base);
    expect(files(hooks)).toEqual(before);
    expect((await uninstallCopilot(base)).changes).toEqual([]);
  });

  it("writes a relative --entry as the absolute path it names (Copilot runs hooks from any folder)", async () => {
    const { base } = fixture();
    const { hooksPath } = await installCopilot({ ...base, entry: "tools/hook.cjs" });
    const written = JSON.parse(readFileSync(hooksPath, "utf8"));
    expect(written.hooks.agentStop[0].bash).toBe(
      `"${process.execPath}" "${resolve("tools/hook.cjs")}" hook copilot --event agentStop`,
    );
  });

  it("never replaces or removes a hooks file it did not write", async () => {
    const { project, base } = fixture();
    const path = join(project, ".github", "hooks", COPILOT_HOOKS_FILE);
    writeFileSync(path, '{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"mine"}]}}\n');
    await expect(installCopilot(base)).rejects.toThrow(/was not written by todo-continuation/);
    expect((await uninstallCopilot(base)).changes).toEqual([]);
    expect(isOurHooksFile(readFileSync(path, "utf8"))).toBe(false);
    await expect(installCopilot({ ...base, preset: "fast" })).rejects.toThrow(/--preset/);
  });

  it("installs for the user in $COPILOT_HOME/hooks, else ~/.copilot/hooks", async () => {
    const { root, home, base } = fixture();
    const user = await installCopilot({ ...base, target: "user" });
    expect(user.hooksPath).toBe(join(home, ".copilot", "hooks", COPILOT_HOOKS_FILE));
    const other = await installCopilot({
      ...base,
      target: "user",
      env: { HOME: home, COPILOT_HOME: join(root, "ch") },
    });
    expect(other.hooksPath).toBe(join(root, "ch", "hooks", COPILOT_HOOKS_FILE));
  });

  it("puts the user's hooks in the folder where the hook finds the sessions, whatever COPILOT_HOME says", () => {
    for (const copilotHome of ["/abs/ch", "relative/ch", " spaced/ch ", "", "   "]) {
      const env = { HOME: "/home/u", COPILOT_HOME: copilotHome };
      const hooks = copilotHooksDir("user", "/project", env);
      const sessions = dirname(dirname(dirname(copilotTranscriptPath("s-1", env) as string)));
      expect(dirname(hooks), JSON.stringify(copilotHome)).toBe(sessions);
      expect(hooks).toBe(
        copilotHome.trim() ? resolve(copilotHome.trim(), "hooks") : "/home/u/.copilot/hooks",
      );
    }
  });
});

describe("install copilot with a project check", () => {
  it("gives agentStop a timeout that covers the check, says so, and keeps the prompt's at 30 s", async () => {
    const { project, base } = fixture();
    writeFileSync(
      join(project, "todo-continuation.config.json"),
      JSON.stringify({ verify: { command: "npm test", timeoutMs: 60_000 } }),
    );
    const lines: string[] = [];
    const { hooksPath } = await installCopilot({ ...base, out: (l) => lines.push(l) });
    const hooks = JSON.parse(readFileSync(hooksPath, "utf8")).hooks;
    // Twice the check's limit (a wait on another session's run, then its own), plus 41 s.
    expect(hooks.agentStop[0].timeoutSec).toBe(161);
    expect(hooks.userPromptSubmitted[0].timeoutSec).toBe(30);
    expect(lines.join("\n")).toMatch(/Stop hook timeout: 161 s, covering verify\.timeoutMs 60000/);
  });

  it("doctor: a check raised after install is no longer covered, and says to install again", async () => {
    const { project, home, base } = fixture();
    const config = join(project, "todo-continuation.config.json");
    writeFileSync(config, JSON.stringify({ verify: { command: "npm test", timeoutMs: 60_000 } }));
    await installCopilot(base);
    const doctor = () =>
      copilotDoctor({ cwd: project, home, env: { HOME: home, PATH: "/nowhere" } });
    expect((await doctor()).find((f) => f.check === "timeout")).toMatchObject({ ok: true });
    writeFileSync(config, JSON.stringify({ verify: { command: "npm test", timeoutMs: 300_000 } }));
    const stale = (await doctor()).find((f) => f.check === "timeout");
    expect(stale).toMatchObject({ ok: false, fix: "todo-continuation install copilot --project" });
    expect(stale?.message).toMatch(/161 s .*does not cover verify\.timeoutMs 300000/);
  });
});

describe("ours in both hooks folders", () => {
  it("is said at the second install and by doctor, and gone once one is removed", async () => {
    const { project, home, base } = fixture();
    const ctx = { cwd: project, home, env: { HOME: home, PATH: "/nowhere" } };
    const first: string[] = [];
    await installCopilot({ ...base, out: (l) => void first.push(l) });
    expect(first.some((l) => l.includes("installed twice"))).toBe(false);
    const second: string[] = [];
    const user = await installCopilot({ ...base, target: "user", out: (l) => void second.push(l) });
    const projectFile = join(project, ".github", "hooks", COPILOT_HOOKS_FILE);
    expect(second).toContain(`Note: ${twiceInstalled([user.hooksPath, projectFile])}`);
    const twice = (await copilotDoctor(ctx)).find((f) => f.message.includes("installed twice"));
    expect(twice).toMatchObject({ check: "hooks", ok: false });
    expect(twice?.fix).toBe("todo-continuation uninstall copilot --user");
    await uninstallCopilot({ ...base, target: "user" });
    const after = await copilotDoctor(ctx);
    expect(after.some((f) => f.message.includes("installed twice"))).toBe(false);
  });
});

describe("copilotDoctor", () => {
  it("finds a default install's hook starting", async () => {
    const { project, home } = fixture();
    await installCopilot({ projectDir: project, env: { HOME: home }, out: () => {} });
    const findings = await copilotDoctor({
      cwd: project,
      home,
      env: { HOME: home, PATH: "/nowhere" },
    });
    const loadable = findings.find((f) => f.check === "loadable");
    expect(loadable?.ok, loadable?.message).toBe(true);
    expect(loadable?.message).toMatch(/^the hook command starts \(.*dist\/hook\/main\.cjs\)$/);
  });

  it("names the program a hooks file runs when it is gone", async () => {
    const { project, home, base, root } = fixture();
    await installCopilot(base);
    rmSync(join(root, "pkg"), { recursive: true });
    const findings = await copilotDoctor({
      cwd: project,
      home,
      env: { HOME: home, PATH: "/nowhere" },
    });
    const hooks = findings.find((f) => f.check === "loadable");
    expect(hooks?.ok).toBe(false);
    expect(hooks?.message).toContain(join(root, "pkg", "dist", "hook", "main.cjs"));
    expect(findings.find((f) => f.check === "version")?.ok).toBe(false);
  });

  /** A folder with a `copilot` that answers `--version` as that release does. */
  function copilotOnPath(root: string, version: string): string {
    const bin = join(root, "bin");
    mkdirSync(bin, { recursive: true });
    return versionProgram(bin, "copilot", `GitHub Copilot CLI ${version}.`);
  }

  it("says when the release cannot run a repository's hooks in prompt mode, and how to get round it", async () => {
    const { project, home, base, root } = fixture();
    await installCopilot(base);
    const doctor = async (version: string, extra: Record<string, string> = {}) => {
      const env = { HOME: home, PATH: copilotOnPath(root, version), ...extra };
      return (await copilotDoctor({ cwd: project, home, env })).filter(
        (f) => f.check === "version",
      );
    };
    for (const version of ["1.0.40", "1.0.48"]) {
      const [gate, flaw] = await doctor(version);
      expect(gate?.ok).toBe(true);
      expect(flaw?.ok).toBe(false);
      expect(flaw?.message).toBe(
        `Copilot CLI ${version} runs a repository's hooks in prompt mode (\`copilot -p\`) only with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true: such runs are never nudged`,
      );
      expect(flaw?.fix).toMatch(/^copilot update/);
    }
    for (const version of ["1.0.11", "1.0.39", "1.0.49", "1.0.102"]) {
      expect((await doctor(version)).map((f) => f.ok)).toEqual([true]);
    }
    const lifted = await doctor("1.0.44", { GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS: "true" });
    expect(lifted.map((f) => f.ok)).toEqual([true]);
    const [old] = await doctor("1.0.10");
    expect(old?.message).toBe("Copilot CLI 1.0.10 is older than 1.0.11, the oldest tested");
  });

  it("does not name the prompt-mode flaw where ours is installed for the user (Copilot runs those)", async () => {
    const { project, home, base, root } = fixture();
    await installCopilot({ ...base, target: "user" });
    const env = { HOME: home, PATH: copilotOnPath(root, "1.0.44") };
    const findings = await copilotDoctor({ cwd: project, home, env });
    // The doctor found the user's file (it checks its command), and names no flaw for it.
    expect(findings.filter((f) => f.check === "loadable")).toHaveLength(1);
    expect(findings.filter((f) => f.check === "version").map((f) => f.ok)).toEqual([true]);
    // Ours in both folders: the user's runs in prompt mode, so nothing is lost there either.
    await installCopilot(base);
    const both = await copilotDoctor({ cwd: project, home, env });
    expect(both.filter((f) => f.check === "loadable")).toHaveLength(2);
    expect(both.filter((f) => f.check === "version").map((f) => f.ok)).toEqual([true]);
  });
});
