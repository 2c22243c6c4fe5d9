import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { installCodex, uninstallCodex } from "./install.js";

/**
 * Install then uninstall gives every file back byte for byte: the project's
 * config, the user's config (trust entries), the project's .gitignore, and
 * files and folders the install created are gone again.
 */

const root = await mkdtemp(join(tmpdir(), "tc-codex-uninstall-"));
afterAll(() => rm(root, { recursive: true, force: true }));

/** Contents a file may start with; null: the file does not exist. */
const TOML_STARTS: (string | null)[] = [
  null,
  "",
  "\n",
  'model = "gpt-6"',
  'model = "gpt-6"\n',
  'model = "gpt-6"\n\n',
  '# mine\r\nmodel = "gpt-6"\r\n',
  '# mine\r\nmodel = "gpt-6"',
  '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "notify-send done"\n',
  "[tools.update_plan]\nenabled = true\n  # trailing comment without newline",
];

const GITIGNORE_STARTS: (string | null)[] = [
  null,
  "",
  "node_modules/",
  "node_modules/\n",
  "a\r\nb\r\n",
];

let n = 0;

async function world(options: { homeExists: boolean; codexDirExists: boolean; git: boolean }) {
  const base = join(root, `w${n++}`);
  const home = join(base, "codex-home");
  const project = join(base, "project");
  await mkdir(project, { recursive: true });
  if (options.git) await mkdir(join(project, ".git"));
  if (options.homeExists) await mkdir(home);
  if (options.codexDirExists) await mkdir(join(project, ".codex"));
  return {
    home,
    project,
    options: {
      env: { CODEX_HOME: home, HOME: base },
      projectDir: project,
      nodePath: "/usr/bin/node",
      packageRoot: "/pkg",
      out: () => undefined,
    },
  };
}

async function put(path: string, text: string | null) {
  if (text !== null) await writeFile(path, text);
}

async function bytes(path: string): Promise<string | null> {
  return existsSync(path) ? readFile(path, "utf8") : null;
}

describe("uninstall codex gives back the bytes install found", () => {
  it("--project: every start of the project config, the user config and .gitignore", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TOML_STARTS),
        fc.constantFrom(...TOML_STARTS),
        fc.constantFrom(...GITIGNORE_STARTS),
        fc.boolean(),
        fc.integer({ min: 1, max: 2 }),
        async (projectStart, userStart, ignoreStart, git, installs) => {
          const homeExists = userStart !== null;
          const codexDirExists = projectStart !== null;
          const w = await world({ homeExists, codexDirExists, git });
          const projectConfig = join(w.project, ".codex", "config.toml");
          const userConfig = join(w.home, "config.toml");
          const gitignore = join(w.project, ".gitignore");
          await put(projectConfig, projectStart);
          await put(userConfig, userStart);
          await put(gitignore, ignoreStart);
          for (let i = 0; i < installs; i++) await installCodex(w.options);
          expect(await bytes(projectConfig)).not.toBe(projectStart);
          await uninstallCodex(w.options);
          expect(await bytes(projectConfig)).toBe(projectStart);
          expect(await bytes(userConfig)).toBe(userStart);
          expect(await bytes(gitignore)).toBe(ignoreStart);
          expect(existsSync(join(w.project, ".codex"))).toBe(codexDirExists);
          expect(existsSync(w.home)).toBe(homeExists);
        },
      ),
      { numRuns: 120 },
    );
  });

  it("--user: hooks and trust in one file, for every start", async () => {
    for (const start of TOML_STARTS) {
      const w = await world({ homeExists: start !== null, codexDirExists: false, git: true });
      const userConfig = join(w.home, "config.toml");
      await put(userConfig, start);
      await installCodex({ ...w.options, target: "user" });
      await installCodex({ ...w.options, target: "user", preset: "omo" });
      await uninstallCodex({ ...w.options, target: "user" });
      expect(await bytes(userConfig), JSON.stringify(start)).toBe(start);
      expect(existsSync(w.home)).toBe(start !== null);
    }
  });

  it("keeps what the user wrote after our blocks since the install", async () => {
    const w = await world({ homeExists: true, codexDirExists: true, git: true });
    const projectConfig = join(w.project, ".codex", "config.toml");
    await writeFile(projectConfig, 'model = "gpt-6"');
    await installCodex(w.options);
    await writeFile(
      projectConfig,
      `${await readFile(projectConfig, "utf8")}approval_policy = "never"\n`,
    );
    await uninstallCodex(w.options);
    expect(await readFile(projectConfig, "utf8")).toBe(
      'model = "gpt-6"\napproval_policy = "never"\n',
    );
  });

  it("leaves a folder the install made when something else now lives in it", async () => {
    const w = await world({ homeExists: true, codexDirExists: false, git: true });
    await installCodex(w.options);
    await mkdir(join(w.project, ".codex", "todo-continuation"));
    await uninstallCodex(w.options);
    expect(existsSync(join(w.project, ".codex", "config.toml"))).toBe(false);
    expect(existsSync(join(w.project, ".codex", "todo-continuation"))).toBe(true);
  });
});
