import * as fs from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { installCodex, uninstallCodex } from "./install.js";

/**
 * A Codex install is all or nothing: when one of its writes is refused (the
 * project's config, the user's trust entries, the .gitignore line), the files
 * it already wrote get their bytes back and the files and folders it created
 * go, so nothing is left half installed.
 */

/** The file whose replacement is refused next, by the end of its path. */
const refuse: { name: string | null } = { name: null };

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return {
    ...real,
    renameSync: (from: fs.PathLike, to: fs.PathLike) => {
      if (refuse.name !== null && String(to).endsWith(refuse.name)) {
        const error = new Error(
          `ENOSPC: injected, rename to ${String(to)}`,
        ) as NodeJS.ErrnoException;
        error.code = "ENOSPC";
        throw error;
      }
      real.renameSync(from, to);
    },
  };
});

const root = await mkdtemp(join(tmpdir(), "tc-codex-tx-"));
afterAll(() => rm(root, { recursive: true, force: true }));
afterEach(() => {
  refuse.name = null;
});

/** Every file and folder under a folder, with its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const key = relative(dir, path);
    out[entry.isDirectory() ? `${key}/` : key] = entry.isDirectory()
      ? ""
      : fs.readFileSync(path, "utf8");
  }
  return out;
}

let n = 0;
async function world(homeExists: boolean, userConfig: string | null, gitignore: string | null) {
  const base = join(root, `w${n++}`);
  const home = join(base, "codex-home");
  const project = join(base, "project");
  await mkdir(join(project, ".git"), { recursive: true });
  if (homeExists) await mkdir(home);
  if (homeExists && userConfig !== null) await writeFile(join(home, "config.toml"), userConfig);
  if (gitignore !== null) await writeFile(join(project, ".gitignore"), gitignore);
  return {
    options: {
      env: { CODEX_HOME: home, HOME: base },
      projectDir: project,
      nodePath: "/usr/bin/node",
      packageRoot: "/pkg",
      out: () => undefined,
    },
    tree: () => snapshot(base),
  };
}

const WORLDS = [
  ["no Codex home, no .gitignore", false, null, null],
  ["a user config and a .gitignore of their own", true, 'model = "gpt-6"\n', "node_modules/\n"],
] as const;

describe("a Codex install whose write is refused part way", () => {
  for (const [label, homeExists, userConfig, gitignore] of WORLDS) {
    for (const name of [".codex/config.toml", "codex-home/config.toml", ".gitignore"]) {
      it(`${label}: refusing ${name} leaves every file and folder as it was`, async () => {
        const w = await world(homeExists, userConfig, gitignore);
        const before = w.tree();
        refuse.name = name;
        await expect(installCodex(w.options)).rejects.toThrow(/ENOSPC: injected/);
        refuse.name = null;
        expect(w.tree()).toEqual(before);
        // Without the failure it installs, and uninstall still gives every byte back.
        await installCodex(w.options);
        expect(w.tree()).not.toEqual(before);
        await uninstallCodex(w.options);
        expect(w.tree()).toEqual(before);
      });
    }
  }
});
